// Hostile input is boring: bodies up to 16 MiB are taken and larger ones refused 413 naming the
// limit, on a connection that stays intact so a proxy can pass the answer on; JSON nested deeper
// than 256 levels is a 400 at the parser in each API's own shape; over-long and unstorable values
// are validated before the database sees them; and the database's client errors (classes 22, 23,
// this project's P0xxx) are 4xx. None of it leaves the server unable to answer the next request.
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { JSON_BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from '../src/json-body.ts';
import { managementQuery, signedUpClient } from './clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let user: Awaited<ReturnType<typeof signedUpClient>>;
let token: string;

beforeAll(async () => {
  user = await signedUpClient(localbase, 'hostile');
  token = (await user.client.auth.getSession()).data.session?.access_token as string;
});

const auth2024 = { 'x-supabase-api-version': '2024-01-01' };

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra };
}

async function send(path: string, body: string | undefined, extra: Record<string, string> = {}, method = 'POST') {
  const response = await fetch(`${localbase.url}${path}`, { method, headers: headers(extra), body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

async function count(sql: string): Promise<number> {
  const response = await managementQuery(localbase, sql);
  return ((await response.json()) as { n: number }[])[0]?.n ?? -1;
}

const backupCount = () => count(`select count(*)::int as n from public.user_backups where user_id = '${user.id}'`);

/**
 * Sends a body over plain HTTP/1.1, the way a proxy forwards it, and reads the answer. Rejects if
 * the connection is reset or closed before an answer arrives.
 */
function postRaw(path: string, body: Buffer, options: { chunked: boolean; extra?: Record<string, string> }) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, localbase.url);
    const request = http.request(url, {
      method: 'POST',
      headers: {
        ...headers(options.extra),
        ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    // In 1 MiB pieces, as a slow client or a proxy streams it.
    for (let offset = 0; offset < body.length; offset += 1024 * 1024)
      request.write(body.subarray(offset, offset + 1024 * 1024));
    request.end();
  });
}

function nested(depth: number, leaf = '1'): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

function nestedObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

describe('body sizes', () => {
  it(`takes a backup just under the ${JSON_BODY_LIMIT_BYTES}-byte JSON limit`, async () => {
    const before = await backupCount();
    const blob = 'x'.repeat(JSON_BODY_LIMIT_BYTES - 1024);
    const { status } = await send('/rest/v1/user_backups', JSON.stringify({ user_id: user.id, payload: { blob } }), {
      prefer: 'return=minimal',
    });
    expect(status).toBe(201);
    expect(await backupCount()).toBe(before + 1);
  }, 120_000);

  it.each([
    ['with a Content-Length', false],
    ['chunked', true],
  ])(
    'refuses a body over the limit %s with 413 naming it, on an intact connection, and writes nothing',
    async (_how, chunked) => {
      const before = await backupCount();
      const body = Buffer.from(
        JSON.stringify({ user_id: user.id, payload: { blob: 'x'.repeat(JSON_BODY_LIMIT_BYTES + 10) } }),
      );
      const rest = await postRaw('/rest/v1/user_backups', body, { chunked });
      expect(rest.status).toBe(413);
      expect(rest.body).toEqual({
        code: 'PT413',
        details: null,
        hint: null,
        message: expect.stringContaining(String(JSON_BODY_LIMIT_BYTES)),
      });
      expect(await backupCount()).toBe(before);

      const auth = await postRaw('/auth/v1/signup', body, { chunked, extra: auth2024 });
      expect(auth).toEqual({
        status: 413,
        body: {
          code: 'request_entity_too_large',
          message: `Request body too large (max ${JSON_BODY_LIMIT_BYTES} bytes)`,
        },
      });

      const storage = await postRaw('/storage/v1/object/list/study-material', body, { chunked });
      expect(storage.status).toBe(413);
      expect(storage.body).toMatchObject({
        statusCode: '413',
        code: 'EntityTooLarge',
        message: expect.stringContaining(String(JSON_BODY_LIMIT_BYTES)),
      });

      const management = await postRaw('/v1/projects/local/database/query', body, {
        chunked,
        extra: { authorization: `Bearer ${localbase.accessToken}` },
      });
      expect(management.status).toBe(413);
      expect(management.body.message).toContain(String(JSON_BODY_LIMIT_BYTES));
    },
    120_000,
  );
});

describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  const deep = nested(10_000);

  it('is a 400 PGRST102 on the data API (insert, update, rpc), never a 500', async () => {
    const before = await backupCount();
    for (const [path, method] of [
      ['/rest/v1/user_backups', 'POST'],
      [`/rest/v1/user_settings?user_id=eq.${user.id}`, 'PATCH'],
      ['/rest/v1/rpc/community_bootstrap_profile', 'POST'],
    ] as const) {
      const { status, body } = await send(path, `{"user_id":"${user.id}","payload":${deep}}`, {}, method);
      expect(status, path).toBe(400);
      expect(body).toEqual({
        code: 'PGRST102',
        details: expect.stringContaining(String(MAX_JSON_DEPTH)),
        hint: null,
        message: 'Empty or invalid json',
      });
    }
    expect(await backupCount()).toBe(before);
  });

  it("is a 400 bad_json on auth, in GoTrue's shape", async () => {
    const signup = await send(
      '/auth/v1/signup',
      `{"email":"deep@example.com","password":"123456","data":{"x":${nestedObject(10_000)}}}`,
      auth2024,
    );
    expect(signup).toEqual({
      status: 400,
      body: { code: 'bad_json', message: expect.stringMatching(/^Could not parse request body as JSON: .*256/) },
    });
    const login = await send('/auth/v1/token?grant_type=password', `{"email":${deep}}`, auth2024);
    expect(login.status).toBe(400);
    expect(await count(`select count(*)::int as n from auth.users where email = 'deep@example.com'`)).toBe(0);
  });

  it('is a 400 InvalidRequest on storage and a 400 on the management API', async () => {
    const list = await send('/storage/v1/object/list/study-material', `{"prefix":${deep}}`);
    expect(list).toEqual({
      status: 400,
      body: {
        statusCode: '400',
        code: 'InvalidRequest',
        error: 'Bad Request',
        message: expect.stringContaining('256'),
      },
    });
    const management = await fetch(`${localbase.url}/v1/projects/local/database/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${localbase.accessToken}`, 'content-type': 'application/json' },
      body: `{"query":${deep}}`,
    });
    expect(management.status).toBe(400);
  });

  it(`keeps exactly ${MAX_JSON_DEPTH} levels (a row, its payload and what is inside), and brackets in strings do not count`, async () => {
    const inner = nestedObject(MAX_JSON_DEPTH - 2);
    const accepted = await send('/rest/v1/user_backups', `{"user_id":"${user.id}","payload":${inner}}`, {
      prefer: 'return=minimal',
    });
    expect(accepted.status).toBe(201);
    const tooDeep = await send(
      '/rest/v1/user_backups',
      `{"user_id":"${user.id}","payload":${nestedObject(MAX_JSON_DEPTH)}}`,
    );
    expect(tooDeep.status).toBe(400);
    const brackets = await send(
      '/rest/v1/user_backups',
      JSON.stringify({ user_id: user.id, payload: { note: '['.repeat(5000) + '{'.repeat(5000) } }),
      { prefer: 'return=minimal' },
    );
    expect(brackets.status).toBe(201);
  });

  it('leaves the server answering: a normal request right after succeeds', async () => {
    const { status } = await send('/rest/v1/user_backups?select=id&limit=1', undefined, {}, 'GET');
    expect(status).toBe(200);
  });
});

describe('values validated before the database sees them', () => {
  it('refuses a 300-character e-mail with 400 validation_failed, as GoTrue does, and creates nothing', async () => {
    const email = `${'a'.repeat(288)}@example.com`;
    expect(email).toHaveLength(300);
    const signup = await send('/auth/v1/signup', JSON.stringify({ email, password: 'secret-enough' }), auth2024);
    expect(signup).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'An email address is too long' },
    });
    const admin = await fetch(`${localbase.url}/auth/v1/admin/users`, {
      method: 'POST',
      headers: {
        apikey: localbase.serviceRoleKey,
        authorization: `Bearer ${localbase.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email, password: 'secret-enough' }),
    });
    expect(admin.status).toBe(400);
    const login = await send(
      '/auth/v1/token?grant_type=password',
      JSON.stringify({ email, password: 'secret-enough' }),
      auth2024,
    );
    expect(login).toEqual({ status: 400, body: { code: 'invalid_credentials', message: 'Invalid login credentials' } });
    expect(await count(`select count(*)::int as n from auth.users where length(email) > 255`)).toBe(0);
  });

  it('answers NUL characters and over-long tokens in auth with 400, never 500', async () => {
    const nulMetadata = await send(
      '/auth/v1/signup',
      JSON.stringify({ email: 'nul@example.com', password: 'secret-enough', data: { bio: 'a\u0000b' } }),
      auth2024,
    );
    expect(nulMetadata.status).toBe(400);
    expect(nulMetadata.body.code).toBe('validation_failed');
    expect(await count(`select count(*)::int as n from auth.users where email = 'nul@example.com'`)).toBe(0);
    for (const refreshToken of ['a\u0000b', 'x'.repeat(300)]) {
      const refresh = await send(
        '/auth/v1/token?grant_type=refresh_token',
        JSON.stringify({ refresh_token: refreshToken }),
        auth2024,
      );
      expect(refresh).toEqual({ status: 400, body: { code: 'refresh_token_not_found', message: expect.any(String) } });
    }
    const nulLogin = await send(
      '/auth/v1/token?grant_type=password',
      JSON.stringify({ email: 'a\u0000@example.com', password: 'x' }),
      auth2024,
    );
    expect(nulLogin.status).toBe(400);
    const page = await fetch(`${localbase.url}/auth/v1/admin/users?page=1e300`, {
      headers: { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}`, ...auth2024 },
    });
    expect(page.status).toBe(400);
  });
});

describe('database client errors are 4xx on the data API', () => {
  it('answers a NUL character in a JSON string written to jsonb with 400 (22P05), writing nothing', async () => {
    const before = await backupCount();
    const { status, body } = await send(
      '/rest/v1/user_backups',
      JSON.stringify({ user_id: user.id, payload: { note: 'a\u0000b' } }),
    );
    expect(status).toBe(400);
    expect(body.code).toBe('22P05');
    expect(await backupCount()).toBe(before);
  });

  it('answers a NUL character written to a text column, a number out of range and a check violation with 400', async () => {
    const settings = `/rest/v1/user_settings?user_id=eq.${user.id}`;
    const outOfRange = await send(settings, JSON.stringify({ day_offset_hours: 70_000 }), {}, 'PATCH');
    expect(outOfRange).toMatchObject({ status: 400, body: { code: '22003' } });
    const check = await send(settings, JSON.stringify({ day_offset_hours: 30 }), {}, 'PATCH');
    expect(check).toMatchObject({ status: 400, body: { code: '23514' } });
    const text = await send(
      `/rest/v1/user_profiles?user_id=eq.${user.id}`,
      JSON.stringify({ display_name: 'a\u0000b' }),
      {},
      'PATCH',
    );
    expect(text.status).toBe(400);
    expect(text.body.code).toMatch(/^22/);
  });

  it("answers the project's own raised codes (P0010 invalid handle, P0011 handle taken) with 400", async () => {
    const other = await signedUpClient(localbase, 'handle-owner');
    const taken = await other.client.rpc('community_bootstrap_profile', { p_handle: 'taken_handle' });
    expect(taken.error).toBeNull();
    const invalid = await send(
      '/rest/v1/rpc/community_bootstrap_profile',
      JSON.stringify({ p_handle: 'no spaces allowed' }),
    );
    expect(invalid).toMatchObject({ status: 400, body: { code: 'P0010', message: 'invalid_handle' } });
    const duplicate = await send(
      '/rest/v1/rpc/community_bootstrap_profile',
      JSON.stringify({ p_handle: 'taken_handle' }),
    );
    expect(duplicate).toMatchObject({
      status: 400,
      body: { code: 'P0011', message: 'handle_taken', hint: 'choose another handle' },
    });
  });
});

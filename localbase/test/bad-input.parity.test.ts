// Bad input gets a clear error in the shape of the API it was sent to, and writes nothing:
// malformed JSON, unknown filter operators, oversized bodies (1 MiB JSON limit), expired and
// forged JWTs (wrong secret, alg none) and role claims that are not anon/authenticated/service_role.
import { SignJWT, UnsecuredJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { JSON_BODY_LIMIT_BYTES } from '../src/json-body.ts';
import { managementQuery, signedUpClient } from './clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let user: Awaited<ReturnType<typeof signedUpClient>>;
let userToken: string;

beforeAll(async () => {
  user = await signedUpClient(localbase, 'mallory');
  userToken = (await user.client.auth.getSession()).data.session?.access_token as string;
});

function sign(claims: Record<string, unknown>, secret: string, expiresIn: string | number = '1h'): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

function userClaims(): Record<string, unknown> {
  return JSON.parse(Buffer.from(userToken.split('.')[1] as string, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

async function backupCount(): Promise<number> {
  const response = await managementQuery(localbase, 'select count(*)::int as n from public.user_backups');
  return ((await response.json()) as { n: number }[])[0]?.n ?? -1;
}

async function rest(
  path: string,
  init: { method?: string; token?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${localbase.url}/rest/v1/${path}`, {
    method: init.method ?? 'GET',
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${init.token ?? userToken}`,
      'content-type': 'application/json',
      ...init.headers,
    },
    body: init.body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Auth's /user with `token`, as auth-js's getUser asks it. */
function authUser(token: string): Promise<Response> {
  return fetch(`${localbase.url}/auth/v1/user`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'x-supabase-api-version': '2024-01-01' },
  });
}

/** PostgREST's error body: exactly code, details, hint and message. */
function expectPostgrestError(body: Record<string, unknown>, code: string): void {
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message']);
  expect(body.code).toBe(code);
  expect(body.message).toEqual(expect.any(String));
}

describe('malformed and oversized bodies', () => {
  it('answers malformed JSON on the data API with 400 PGRST102 and writes nothing', async () => {
    const before = await backupCount();
    const { status, body } = await rest('user_backups', { method: 'POST', body: '{"user_id": "x", "payload": {' });
    expect(status).toBe(400);
    expectPostgrestError(body, 'PGRST102');
    expect(await backupCount()).toBe(before);
  });

  it('answers malformed JSON on auth with a GoTrue error body', async () => {
    const response = await fetch(`${localbase.url}/auth/v1/signup`, {
      method: 'POST',
      headers: {
        apikey: localbase.anonKey,
        'content-type': 'application/json',
        'x-supabase-api-version': '2024-01-01',
      },
      body: '{"email":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_json', message: expect.any(String) });
    expect(response.headers.get('x-sb-error-code')).toBe('bad_json');
  });

  it('uses the legacy GoTrue shape without the API version header', async () => {
    const response = await fetch(`${localbase.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'wrong-password' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
  });

  it(`refuses a JSON body over ${JSON_BODY_LIMIT_BYTES} bytes with 413 PT413 and writes nothing`, async () => {
    const before = await backupCount();
    const payload = { blob: 'x'.repeat(JSON_BODY_LIMIT_BYTES) };
    const { status, body } = await rest('user_backups', {
      method: 'POST',
      body: JSON.stringify({ user_id: user.id, payload }),
    });
    expect(status).toBe(413);
    expectPostgrestError(body, 'PT413');
    expect(await backupCount()).toBe(before);
  });

  it('refuses a body that is not an object or array of objects (400 PGRST102)', async () => {
    const { status, body } = await rest('user_backups', { method: 'POST', body: '42' });
    expect(status).toBe(400);
    expect(body.code).toBe('PGRST102');
  });
});

describe('filters and names from the request', () => {
  it('answers an unknown filter operator with 400 PGRST100', async () => {
    const { status, body } = await rest('user_backups?id=regex.abc');
    expect(status).toBe(400);
    expectPostgrestError(body, 'PGRST100');
  });

  it('answers an unknown column with 400 and never builds SQL from it', async () => {
    const { status, body } = await rest(
      `user_backups?${encodeURIComponent('id"; drop table public.user_backups; --')}=eq.1`,
    );
    expect(status).toBe(400);
    expect(body.code).toBe('42703');
    const { status: selectStatus } = await rest(`user_backups?select=${encodeURIComponent('id,(select 1)')}`);
    expect(selectStatus).toBe(400);
    expect((await rest('user_backups?select=id')).status).toBe(200);
  });

  it('refuses a write with an unknown column (400 PGRST204) and writes nothing', async () => {
    const before = await backupCount();
    const { status, body } = await rest('user_backups', {
      method: 'POST',
      body: JSON.stringify({ user_id: user.id, payload: {}, evil: 1 }),
    });
    expect(status).toBe(400);
    expect(body.code).toBe('PGRST204');
    expect(await backupCount()).toBe(before);
  });

  it('refuses a schema other than public (406 PGRST106)', async () => {
    const { status, body } = await rest('users', { headers: { 'accept-profile': 'auth' } });
    expect(status).toBe(406);
    expect(body.code).toBe('PGRST106');
  });
});

describe('tokens', () => {
  const write = (token: string) =>
    rest('user_backups', {
      method: 'POST',
      token,
      body: JSON.stringify({ user_id: user.id, payload: { forged: true } }),
    });

  it('refuses an expired token (401 PGRST303) on rest, 403 bad_jwt on auth, and writes nothing', async () => {
    const before = await backupCount();
    const expired = await sign(
      { ...userClaims(), exp: undefined },
      localbase.jwtSecret,
      Math.floor(Date.now() / 1000) - 120,
    );
    const { status, body } = await write(expired);
    expect(status).toBe(401);
    expectPostgrestError(body, 'PGRST303');
    expect(body.message).toBe('JWT expired');
    const auth = await authUser(expired);
    expect(auth.status).toBe(403);
    expect(await auth.json()).toEqual({
      code: 'bad_jwt',
      message: 'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired',
    });
    expect(await backupCount()).toBe(before);
  });

  it('refuses a token signed with another secret (401 PGRST301) and writes nothing', async () => {
    const before = await backupCount();
    const forged = await sign({ ...userClaims(), exp: undefined }, 'not-the-project-secret-but-long-enough-123');
    const { status, body } = await write(forged);
    expect(status).toBe(401);
    expectPostgrestError(body, 'PGRST301');
    // Auth answers GoTrue's words, which auth-js's getClaims and apps look for.
    const auth = await authUser(forged);
    expect(auth.status).toBe(403);
    const refusal = (await auth.json()) as { code: string; message: string };
    expect(refusal.code).toBe('bad_jwt');
    expect(refusal.message).toMatch(/^invalid JWT: unable to parse or verify signature, /);
    expect(await backupCount()).toBe(before);
  });

  it('refuses an unsigned alg:none token, even claiming service_role (401), and writes nothing', async () => {
    const before = await backupCount();
    const unsigned = new UnsecuredJWT({ role: 'service_role' }).setIssuedAt().setExpirationTime('1h').encode();
    const { status, body } = await write(unsigned);
    expect(status).toBe(401);
    expect(body.code).toBe('PGRST301');
    const storage = await fetch(`${localbase.url}/storage/v1/bucket`, {
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${unsigned}` },
    });
    expect(storage.status).toBe(400);
    expect(await storage.json()).toMatchObject({ statusCode: '403', error: 'Unauthorized' });
    expect(await backupCount()).toBe(before);
  });

  it('refuses a correctly signed token whose role is not one of the three (401 PGRST303), writing nothing', async () => {
    const before = await backupCount();
    for (const role of ['postgres', 'authenticator', 'supabase_admin']) {
      const token = await sign({ ...userClaims(), exp: undefined, role }, localbase.jwtSecret);
      const { status, body } = await write(token);
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'PGRST303', message: expect.stringContaining(role) });
    }
    expect(await backupCount()).toBe(before);
  });

  it('refuses a request without any key (401)', async () => {
    const response = await fetch(`${localbase.url}/rest/v1/users`);
    expect(response.status).toBe(401);
  });

  it('refuses a realtime join with a forged token', async () => {
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(
      `${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=2.0.0`,
    );
    await new Promise((resolve) => socket.once('open', resolve));
    const forged = await sign({ role: 'authenticated', sub: user.id }, 'another-secret-another-secret-another');
    socket.send(
      JSON.stringify(['1', '1', 'realtime:x', 'phx_join', { config: { postgres_changes: [] }, access_token: forged }]),
    );
    const reply = await new Promise<unknown[]>((resolve) =>
      socket.once('message', (data) => resolve(JSON.parse(String(data)) as unknown[])),
    );
    socket.close();
    expect(reply[3]).toBe('phx_reply');
    expect(reply[4]).toMatchObject({ status: 'error' });
  });
});

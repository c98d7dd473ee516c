// The API key on every API, as Supabase's gateway checks it: rest, auth, storage and the realtime
// socket URL answer 401 `No API key found in request` without one and 401 `Invalid API key` for a
// key that is not one of the project's (a valid user token included), before the API behind runs;
// public objects of public buckets stay readable without a key, and the project's keys pass.
import { WebSocket } from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, managementQuery, signedUpClient } from './clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let user: Awaited<ReturnType<typeof signedUpClient>>;
let userToken: string;

const NO_KEY = { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' };
const BAD_KEY = { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' };

beforeAll(async () => {
  user = await signedUpClient(localbase, 'keyholder');
  userToken = (await user.client.auth.getSession()).data.session?.access_token as string;
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const uploaded = await user.client.storage
    .from('avatars')
    .upload(`${user.id}/a.png`, new Blob([png], { type: 'image/png' }));
  expect(uploaded.error).toBeNull();
});

async function call(path: string, headers: Record<string, string>, init: { method?: string; body?: string } = {}) {
  const response = await fetch(`${localbase.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

const routes: [string, string, { method?: string; body?: string }][] = [
  ['rest', '/rest/v1/users?select=id', {}],
  ['rest rpc', '/rest/v1/rpc/app_bootstrap_user', { method: 'POST', body: '{}' }],
  ['rest, unknown path', '/rest/v1/a/b/c', {}],
  ['auth', '/auth/v1/user', {}],
  ['auth health', '/auth/v1/health', {}],
  [
    'auth sign-up',
    '/auth/v1/signup',
    { method: 'POST', body: '{"email":"nokey@example.com","password":"secret-secret"}' },
  ],
  ['storage', '/storage/v1/bucket', {}],
  ['storage object', '/storage/v1/object/avatars/x.png', {}],
];

describe('without a key', () => {
  it.each(routes)('%s answers 401 with the gateway body, even with a valid bearer', async (_name, path, init) => {
    const bare = await call(path, { 'content-type': 'application/json' }, init);
    expect(bare.status).toBe(401);
    expect(bare.body).toEqual(NO_KEY);
    expect(bare.type).toBe('application/json; charset=utf-8');
    const bearerOnly = await call(
      path,
      { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      init,
    );
    expect(bearerOnly.status).toBe(401);
    expect(bearerOnly.body).toEqual(NO_KEY);
  });

  it('writes nothing when refused', async () => {
    await call(
      '/auth/v1/signup',
      { 'content-type': 'application/json' },
      { method: 'POST', body: '{"email":"nokey@example.com","password":"secret-secret"}' },
    );
    const response = await managementQuery(
      localbase,
      "select count(*)::int as n from auth.users where email = 'nokey@example.com'",
    );
    expect(await response.json()).toEqual([{ n: 0 }]);
  });
});

describe("with a key that is not the project's", () => {
  it.each(routes)(
    '%s answers 401 Invalid API key, for garbage and for a valid user token alike',
    async (_name, path, init) => {
      for (const key of ['not-a-key', userToken]) {
        const refused = await call(
          path,
          { apikey: key, authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
          init,
        );
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual(BAD_KEY);
      }
      const inQuery = await call(
        `${path}${path.includes('?') ? '&' : '?'}apikey=not-a-key`,
        { 'content-type': 'application/json' },
        init,
      );
      expect(inQuery.status).toBe(401);
      expect(inQuery.body).toEqual(BAD_KEY);
    },
  );
});

describe('the realtime socket URL', () => {
  async function upgrade(query: string): Promise<{ status: number; body?: unknown }> {
    const socket = new WebSocket(`${localbase.url.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
    return new Promise((resolve) => {
      socket.once('open', () => {
        socket.close();
        resolve({ status: 101 });
      });
      socket.once('error', () => {});
      socket.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      });
    });
  }

  it('refuses the upgrade without a key or with a wrong one, and opens with the anon key', async () => {
    expect(await upgrade('vsn=2.0.0')).toEqual({ status: 401, body: NO_KEY });
    expect(await upgrade('apikey=wrong&vsn=2.0.0')).toEqual({ status: 401, body: BAD_KEY });
    expect(await upgrade(`apikey=${userToken}&vsn=2.0.0`)).toEqual({ status: 401, body: BAD_KEY });
    expect(await upgrade(`apikey=${localbase.anonKey}&vsn=2.0.0`)).toEqual({ status: 101 });
  });
});

describe('what passes', () => {
  it('the anon and service_role keys, in the header or the URL', async () => {
    expect(
      (await call('/rest/v1/users?select=id', { apikey: localbase.anonKey, authorization: `Bearer ${userToken}` }))
        .status,
    ).toBe(200);
    expect((await call(`/rest/v1/users?select=id&apikey=${localbase.serviceRoleKey}`, {})).status).toBe(200);
    expect((await call('/auth/v1/health', { apikey: localbase.anonKey })).status).toBe(200);
    expect(
      (
        await call('/storage/v1/bucket', {
          apikey: localbase.serviceRoleKey,
          authorization: `Bearer ${localbase.serviceRoleKey}`,
        })
      ).status,
    ).toBe(200);
  });

  it('supabase-js, which always sends the key', async () => {
    const { data, error } = await user.client.from('users').select('id');
    expect(error).toBeNull();
    expect(data).toEqual([{ id: user.id }]);
    expect((await clientFor(localbase).storage.listBuckets()).error).toBeNull();
  });

  it('public objects of a public bucket, without any key (an <img src>)', async () => {
    const response = await fetch(`${localbase.url}/storage/v1/object/public/avatars/${user.id}/a.png`);
    expect(response.status).toBe(200);
    const privateBucket = await fetch(`${localbase.url}/storage/v1/object/authenticated/avatars/${user.id}/a.png`);
    expect(privateBucket.status).toBe(401);
  });
});

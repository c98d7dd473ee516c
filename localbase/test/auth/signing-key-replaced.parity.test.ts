// Replacing the session signing key by hand, as docs/localbase.md describes it: stop the server,
// delete `signingKey` from keys.json, start it again. A new key signs from then on, a token signed
// with the old one is refused, and the session goes on through its refresh token.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { startLocalbase, type Localbase } from '../../server.ts';

let dataDir: string;
let database: Database;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-key-'));
  database = await openParityDatabase();
});

afterAll(async () => {
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const start = () => startLocalbase({ dataDir, database, port: 0, logger: false });

async function auth(localbase: Localbase, route: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${localbase.url}/auth/v1${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${token ?? localbase.anonKey}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const kidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid?: string }).kid;

it('signs with a new key after signingKey is deleted, refuses the old key, and refreshes the session', async () => {
  const before = await start();
  let session: { access_token: string; refresh_token: string };
  try {
    const signedUp = await auth(before, '/signup', { email: 'keys@example.com', password: 'a long enough passphrase' });
    expect(signedUp.status).toBe(200);
    session = (await signedUp.json()) as typeof session;
    expect((await auth(before, '/user', undefined, session.access_token)).status).toBe(200);
  } finally {
    await before.close();
  }
  const oldKid = kidOf(session.access_token);

  const keysFile = path.join(dataDir, 'keys.json');
  const { signingKey, ...others } = JSON.parse(await readFile(keysFile, 'utf8')) as Record<string, unknown>;
  expect(signingKey).toMatchObject({ kid: oldKid });
  await writeFile(keysFile, JSON.stringify(others), { mode: 0o600 });

  const after = await start();
  try {
    // The API keys did not change; the session key did.
    expect(after.anonKey).toBe(before.anonKey);
    const jwks = (await (await auth(after, '/.well-known/jwks.json', undefined)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).not.toContain(oldKid);

    const refused = await auth(after, '/user', undefined, session.access_token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error_code: 'bad_jwt' });

    const refreshed = await auth(after, '/token?grant_type=refresh_token', { refresh_token: session.refresh_token });
    expect(refreshed.status).toBe(200);
    const renewed = (await refreshed.json()) as { access_token: string };
    expect(kidOf(renewed.access_token)).toBe(jwks.keys[0]?.kid);
    expect((await auth(after, '/user', undefined, renewed.access_token)).status).toBe(200);
  } finally {
    await after.close();
  }
});

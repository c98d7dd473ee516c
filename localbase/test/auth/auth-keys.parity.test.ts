// Asymmetric signing keys: sessions are signed ES256 with the data directory's key pair and carry
// its kid; GET /auth/v1/.well-known/jwks.json publishes the public half; supabase-js's getClaims()
// verifies locally through it. The anon and service_role keys and HS256 user tokens keep working on
// every API, and nothing else does: another key under the same kid, an unknown kid, an HS256 token
// keyed with the public key (algorithm confusion) or alg none.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { base64url, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import ws from 'ws';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signJwt } from '../../src/jwt.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { joinOutcome } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

interface Jwks {
  keys: Record<string, unknown>[];
}

async function jwks(): Promise<{ status: number; cacheControl: string | null; body: Jwks }> {
  const response = await fetch(`${localbase.url}/auth/v1/.well-known/jwks.json`, {
    headers: { apikey: localbase.anonKey },
  });
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    body: (await response.json()) as Jwks,
  };
}

/** The status each API answers a token with: rest, storage, auth's /user, and the realtime join. */
async function statuses(token: string): Promise<{ rest: number; storage: number; user: number; realtime: string }> {
  const headers = { apikey: localbase.anonKey, authorization: `Bearer ${token}` };
  const [rest, storage, user] = await Promise.all([
    fetch(`${localbase.url}/rest/v1/users?select=id`, { headers }),
    fetch(`${localbase.url}/storage/v1/object/list/avatars`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: '' }),
    }),
    fetch(`${localbase.url}/auth/v1/user`, { headers }),
  ]);
  return { rest: rest.status, storage: storage.status, user: user.status, realtime: await realtimeJoin(token) };
}

/** Joins a private channel with the token; answers SUBSCRIBED or the refusal. */
async function realtimeJoin(token: string): Promise<string> {
  const client = clientFor(localbase);
  await client.realtime.setAuth(token);
  const channel = client.channel(`keys-${Math.random().toString(36).slice(2)}`);
  try {
    return (await joinOutcome(channel))?.message ?? 'SUBSCRIBED';
  } finally {
    await client.removeChannel(channel);
    client.realtime.disconnect();
  }
}

const ACCEPTED = { rest: 200, storage: 200, user: 200, realtime: 'SUBSCRIBED' };

/** A client whose requests are recorded, to tell what getClaims() asked the server. */
function countingClient(): { client: SupabaseClient; paths: string[] } {
  const paths: string[] = [];
  const client = createClient(localbase.url, localbase.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as never },
    global: {
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
        return fetch(input, init);
      },
    },
  });
  return { client, paths };
}

describe('the signing key', () => {
  it('signs sessions ES256 with the kid the JWKS publishes, and publishes only the public half', async () => {
    const published = await jwks();
    expect(published.status).toBe(200);
    expect(published.cacheControl).toBe('public, max-age=600');
    expect(published.body.keys).toHaveLength(1);
    const [key] = published.body.keys;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', key_ops: ['verify'] });
    expect(key?.kid).toMatch(/^[0-9a-f-]{36}$/);
    expect(key).not.toHaveProperty('d');
    expect(JSON.stringify(published.body)).not.toContain(localbase.jwtSecret);

    const user = await signedUpClient(localbase, 'keys-header');
    const token = (await user.client.auth.getSession()).data.session?.access_token as string;
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: key?.kid });
    // The legacy API keys stay HS256, as on a hosted project that moved to signing keys.
    expect(decodeProtectedHeader(localbase.anonKey).alg).toBe('HS256');
    expect(decodeProtectedHeader(localbase.serviceRoleKey).alg).toBe('HS256');
  });

  it('lets getClaims() verify a session locally: the JWKS once, never /user', async () => {
    const user = await signedUpClient(localbase, 'keys-claims');
    const { client, paths } = countingClient();
    const session = (await user.client.auth.getSession()).data.session;
    await client.auth.setSession({
      access_token: session?.access_token as string,
      refresh_token: session?.refresh_token as string,
    });
    paths.length = 0;
    const first = await client.auth.getClaims();
    const second = await client.auth.getClaims();
    expect(first.error).toBeNull();
    expect(second.error).toBeNull();
    expect(first.data?.claims.sub).toBe(user.id);
    expect(first.data?.claims.aal).toBe('aal1');
    expect(first.data?.header.alg).toBe('ES256');
    expect(paths.filter((path) => path.endsWith('/user'))).toEqual([]);
    expect(paths.filter((path) => path.endsWith('/.well-known/jwks.json')).length).toBeLessThanOrEqual(1);
  });

  it('makes getClaims() refuse a session token whose payload was changed', async () => {
    const user = await signedUpClient(localbase, 'keys-tampered');
    const token = (await user.client.auth.getSession()).data.session?.access_token as string;
    const [header, , signature] = token.split('.');
    const payload = { ...decodeJwt(token), role: 'service_role' };
    const tampered = `${header}.${base64url.encode(JSON.stringify(payload))}.${signature}`;
    const { data, error } = await clientFor(localbase).auth.getClaims(tampered);
    expect(data).toBeNull();
    expect(error?.message).toMatch(/signature/i);
    expect((await statuses(tampered)).rest).toBe(401);
  });
});

describe('every API', () => {
  it('accepts an ES256 session token, and an HS256 one of the same session (signed before the move)', async () => {
    const user = await signedUpClient(localbase, 'keys-both');
    const es256 = (await user.client.auth.getSession()).data.session?.access_token as string;
    expect(await statuses(es256)).toEqual(ACCEPTED);
    const hs256 = await signJwt(decodeJwt(es256), localbase.jwtSecret);
    expect(decodeProtectedHeader(hs256).alg).toBe('HS256');
    expect(await statuses(hs256)).toEqual(ACCEPTED);
  });

  it('accepts the anon and service_role keys (HS256)', async () => {
    const anon = await fetch(`${localbase.url}/storage/v1/object/list/avatars`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: '' }),
    });
    expect(anon.status).toBe(200);
    expect(await realtimeJoin(localbase.anonKey)).toBe('SUBSCRIBED');
    const service = await clientFor(localbase, localbase.serviceRoleKey).auth.admin.listUsers({ perPage: 1 });
    expect(service.error).toBeNull();
  });

  it('refuses ES256 tokens of another key, under the project kid or another, and alg confusion or none', async () => {
    const user = await signedUpClient(localbase, 'keys-forged');
    const genuine = (await user.client.auth.getSession()).data.session?.access_token as string;
    const claims = { ...decodeJwt(genuine), role: 'service_role' };
    const kid = decodeProtectedHeader(genuine).kid as string;
    const other = await generateKeyPair('ES256');
    const sameKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
      .sign(other.privateKey);
    const otherKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: '00000000-0000-4000-8000-000000000000' })
      .sign(other.privateKey);
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(other.privateKey);
    // HS256 keyed with the published public key, as a verifier that took the key from the header would accept.
    const publicJwk = (await jwks()).body.keys[0] as Record<string, unknown>;
    const confused = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid })
      .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    const none = new UnsecuredJWT(claims).encode();
    // Another curve's algorithm the project has no key for.
    const es384 = await generateKeyPair('ES384');
    const otherAlg = await new SignJWT(claims).setProtectedHeader({ alg: 'ES384', kid }).sign(es384.privateKey);
    expect(await exportJWK(other.publicKey)).not.toEqual(publicJwk);

    for (const forged of [sameKid, otherKid, noKid, confused, none, otherAlg]) {
      const answered = await statuses(forged);
      expect(answered.rest).toBe(401);
      expect(answered.storage).toBe(400);
      expect(answered.user).toBe(403);
      expect(answered.realtime).not.toBe('SUBSCRIBED');
    }
  });
});

// Refresh-token rotation as GoTrue runs it: a spent refresh token presented again after the reuse
// interval is taken as stolen and ends the whole session (the newer refresh token and the session's
// access tokens stop working on every API); within the interval (two tabs refreshing at once, a
// lost answer) it is answered with the session's current token, and the session lives on.
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { REFRESH_TOKEN_REUSE_INTERVAL_SECONDS } from '../../src/auth/sessions.ts';
import { clientFor, managementQuery, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

interface SessionTokens {
  access_token: string;
  refresh_token: string;
}

async function auth(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${localbase.url}/auth/v1/${path}`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function login(email: string, password: string): Promise<SessionTokens> {
  const { status, body } = await auth('token?grant_type=password', { email, password });
  expect(status).toBe(200);
  return body as unknown as SessionTokens;
}

const refresh = (refreshToken: string) => auth('token?grant_type=refresh_token', { refresh_token: refreshToken });

/** Moves a token's revocation back past the reuse interval, instead of sleeping through it. */
async function ageSpentToken(token: string): Promise<void> {
  const aged = await managementQuery(
    localbase,
    `update auth.refresh_tokens set updated_at = now() - interval '${REFRESH_TOKEN_REUSE_INTERVAL_SECONDS + 5} seconds'
     where token = '${token}' and revoked`,
  );
  expect(aged.status).toBe(201);
}

async function userStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${localbase.url}/auth/v1/user`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}` },
  });
  return response.status;
}

async function restStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${localbase.url}/rest/v1/users?select=id`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}` },
  });
  return response.status;
}

async function storageStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${localbase.url}/storage/v1/object/list/study-material`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prefix: '' }),
  });
  return ((await response.json()) as { statusCode?: string }).statusCode === '403' ? 403 : response.status;
}

describe('reuse of a rotated refresh token', () => {
  it('ends the whole session: the newer refresh token and every access token of the session stop working', async () => {
    const victim = await signedUpClient(localbase, 'victim');
    const first = await login(victim.email, victim.password);
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = rotated.body as unknown as SessionTokens;
    expect(await userStatus(second.access_token)).toBe(200);
    expect(await restStatus(second.access_token)).toBe(200);

    await ageSpentToken(first.refresh_token);
    const reuse = await refresh(first.refresh_token);
    expect(reuse).toEqual({
      status: 400,
      body: { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' },
    });

    // The refresh token the owner (or the thief) holds now is dead, and so are the access tokens.
    const newer = await refresh(second.refresh_token);
    expect(newer.status).toBe(400);
    expect(newer.body.code).toBe('refresh_token_not_found');
    for (const accessToken of [first.access_token, second.access_token]) {
      expect(await userStatus(accessToken)).toBe(403);
      expect(await restStatus(accessToken)).toBe(401);
      expect(await storageStatus(accessToken)).toBe(403);
    }
    // The refusal was committed: it holds on the next request too.
    expect((await refresh(first.refresh_token)).body.code).toBe('refresh_token_not_found');
  });

  it("leaves the user's other sessions alone", async () => {
    const user = await signedUpClient(localbase, 'two-devices');
    const phone = await login(user.email, user.password);
    const laptop = await login(user.email, user.password);
    const rotated = (await refresh(phone.refresh_token)).body as unknown as SessionTokens;
    await ageSpentToken(phone.refresh_token);
    expect((await refresh(phone.refresh_token)).status).toBe(400);
    expect(await userStatus(rotated.access_token)).toBe(403);
    expect(await userStatus(laptop.access_token)).toBe(200);
    expect((await refresh(laptop.refresh_token)).status).toBe(200);
  });

  it('within the reuse interval answers the lost answer again: the current token, no new one, session alive', async () => {
    const user = await signedUpClient(localbase, 'two-tabs');
    const first = await login(user.email, user.password);
    const rotated = (await refresh(first.refresh_token)).body as unknown as SessionTokens;
    const again = await refresh(first.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(rotated.refresh_token);
    expect(await userStatus(rotated.access_token)).toBe(200);
    expect(await userStatus(again.body.access_token as string)).toBe(200);
    expect((await refresh(rotated.refresh_token)).status).toBe(200);
  });

  it('after the interval the parent of the current token is refused too (GoTrue would hand over the current one)', async () => {
    const user = await signedUpClient(localbase, 'late-retry');
    const first = await login(user.email, user.password);
    const rotated = (await refresh(first.refresh_token)).body as unknown as SessionTokens;
    await ageSpentToken(first.refresh_token);
    expect((await refresh(first.refresh_token)).body.code).toBe('refresh_token_already_used');
    expect(await userStatus(rotated.access_token)).toBe(403);
  });

  it('supabase-js sees the session end as an auth error', async () => {
    const user = await signedUpClient(localbase, 'supabase-js');
    const first = await login(user.email, user.password);
    const client = clientFor(localbase);
    await client.auth.setSession(first);
    expect((await client.auth.refreshSession()).error).toBeNull();
    await ageSpentToken(first.refresh_token);
    const thief = await clientFor(localbase).auth.refreshSession({ refresh_token: first.refresh_token });
    expect(thief.error?.code).toBe('refresh_token_already_used');
    expect((await client.from('users').select('id')).error?.code).toBe('PGRST303');
  });
});

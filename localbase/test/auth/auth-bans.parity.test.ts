// Bans through the admin API (supabase-js updateUserById with ban_duration): a banned user cannot
// sign in or refresh, and her access tokens stop working on the very next request to every API,
// also when the ban was set by SQL without ending her sessions. Lifting the ban lets her back in.
import type { SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { parseBanDuration } from '../../src/auth/ban-duration.ts';
import { clientFor, managementQuery, signedUpClient } from '../clients.ts';
import { joinOutcome } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

const anon = () => clientFor(localbase);

/**
 * What each API answers a refused token, in its own shape: PostgREST 401 PGRST303, storage-api its
 * InvalidJWT (HTTP 400, `statusCode: "403"`), GoTrue 403 session_not_found.
 */
const LOCKED_OUT = { rest: 401, storage: 400, user: 403 };
const service = () => clientFor(localbase, localbase.serviceRoleKey);

async function statuses(accessToken: string): Promise<{ rest: number; storage: number; user: number }> {
  const headers = { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}` };
  const [rest, storage, user] = await Promise.all([
    fetch(`${localbase.url}/rest/v1/users?select=id`, { headers }),
    fetch(`${localbase.url}/storage/v1/object/list/avatars`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: '' }),
    }),
    fetch(`${localbase.url}/auth/v1/user`, { headers }),
  ]);
  return { rest: rest.status, storage: storage.status, user: user.status };
}

/** Joins a fresh channel; answers the refusal, or undefined when joined. */
async function joinRefusal(client: SupabaseClient): Promise<string | undefined> {
  const channel = client.channel(`bans-${Math.random().toString(36).slice(2)}`);
  try {
    return (await joinOutcome(channel))?.message;
  } finally {
    await client.removeChannel(channel);
  }
}

describe('ban_duration', () => {
  it('parses Go durations and "none"', () => {
    expect(parseBanDuration('24h')).toBe(86_400);
    expect(parseBanDuration('1h30m')).toBe(5400);
    expect(parseBanDuration('1.5h')).toBe(5400);
    expect(parseBanDuration('90s')).toBe(90);
    expect(parseBanDuration('876000h')).toBe(876_000 * 3600);
    expect(parseBanDuration('none')).toBeNull();
    for (const bad of ['', '24', 'h', '1d', '24 h', 'forever', '1h-2m']) expect(parseBanDuration(bad)).toBeUndefined();
  });

  it('refuses a duration that is not one (400), and a caller without the service role (403)', async () => {
    const user = await signedUpClient(localbase, 'bad-duration');
    const bad = await service().auth.admin.updateUserById(user.id, { ban_duration: 'a week' });
    expect(bad.error?.status).toBe(400);
    expect(bad.error?.code).toBe('validation_failed');
    const self = await user.client.auth.admin.updateUserById(user.id, { ban_duration: 'none' });
    expect(self.error?.status).toBe(403);
    expect(self.error?.code).toBe('not_admin');
  });
});

describe('a banned user', () => {
  it('is locked out at once on every API, cannot sign in or refresh, and gets back in when unbanned', async () => {
    const user = await signedUpClient(localbase, 'banned');
    const session = (await user.client.auth.getSession()).data.session;
    const accessToken = session?.access_token as string;
    expect(await statuses(accessToken)).toEqual({ rest: 200, storage: 200, user: 200 });
    expect(await joinRefusal(user.client)).toBeUndefined();

    const banned = await service().auth.admin.updateUserById(user.id, { ban_duration: '24h' });
    expect(banned.error).toBeNull();
    const until = Date.parse(banned.data.user?.banned_until as string);
    expect(until).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(until).toBeLessThan(Date.now() + 25 * 3600_000);

    expect(await statuses(accessToken)).toEqual(LOCKED_OUT);
    expect(await joinRefusal(user.client)).toMatch(/session of this token has ended/);
    const signIn = await anon().auth.signInWithPassword({ email: user.email, password: user.password });
    expect(signIn.error?.status).toBe(400);
    expect(signIn.error?.code).toBe('user_banned');
    const refreshed = await anon().auth.refreshSession({ refresh_token: session?.refresh_token as string });
    expect(refreshed.error).not.toBeNull();
    const magic = await service().auth.admin.generateLink({ type: 'magiclink', email: user.email });
    const viaLink = await anon().auth.verifyOtp({
      token_hash: magic.data.properties?.hashed_token as string,
      type: 'magiclink',
    });
    expect(viaLink.error?.code).toBe('user_banned');

    const listed = await service().auth.admin.listUsers({ perPage: 1000 });
    expect(listed.data.users.find((listedUser) => listedUser.id === user.id)?.banned_until).toBeTruthy();

    const lifted = await service().auth.admin.updateUserById(user.id, { ban_duration: 'none' });
    expect(lifted.error).toBeNull();
    expect(lifted.data.user?.banned_until).toBeUndefined();
    const back = await anon().auth.signInWithPassword({ email: user.email, password: user.password });
    expect(back.error).toBeNull();
    expect(await statuses(back.data.session?.access_token as string)).toEqual({ rest: 200, storage: 200, user: 200 });
  });

  it('is locked out also when the ban is set by SQL, without ending her sessions', async () => {
    const user = await signedUpClient(localbase, 'sql-banned');
    const session = (await user.client.auth.getSession()).data.session;
    await managementQuery(
      localbase,
      `update auth.users set banned_until = now() + interval '1 hour' where id = '${user.id}'`,
    );
    expect(await statuses(session?.access_token as string)).toEqual(LOCKED_OUT);
    const refreshed = await anon().auth.refreshSession({ refresh_token: session?.refresh_token as string });
    expect(refreshed.error?.code).toBe('user_banned');
  });

  it('leaves other users alone', async () => {
    const bystander = await signedUpClient(localbase, 'bystander');
    const target = await signedUpClient(localbase, 'target');
    await service().auth.admin.updateUserById(target.id, { ban_duration: '1h' });
    const token = (await bystander.client.auth.getSession()).data.session?.access_token as string;
    expect(await statuses(token)).toEqual({ rest: 200, storage: 200, user: 200 });
  });
});

describe('admin list', () => {
  it('lists the newest account first, as GoTrue orders it', async () => {
    const older = await signedUpClient(localbase, 'older');
    const newer = await signedUpClient(localbase, 'newer');
    const { data, error } = await service().auth.admin.listUsers({ page: 1, perPage: 2 });
    expect(error).toBeNull();
    expect(data.users.map((user) => user.id)).toEqual([newer.id, older.id]);
  });
});

describe('admin update', () => {
  it('sets a strong password, confirms the e-mail and merges metadata; refuses a weak password', async () => {
    const user = await signedUpClient(localbase, 'admin-update');
    const weak = await service().auth.admin.updateUserById(user.id, { password: 'password' });
    expect(weak.error?.code).toBe('weak_password');
    const updated = await service().auth.admin.updateUserById(user.id, {
      password: 'silver birch morning',
      app_metadata: { plan: 'school' },
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.app_metadata).toMatchObject({ provider: 'email', plan: 'school' });
    expect(
      (await anon().auth.signInWithPassword({ email: user.email, password: 'silver birch morning' })).error,
    ).toBeNull();
  });
});

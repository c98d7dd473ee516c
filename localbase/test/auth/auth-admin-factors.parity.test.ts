// GoTrue's /settings and the admin API's factor routes through supabase-js: what /settings says
// (every key GoTrue's handler answers, with localbase's values), `auth.admin.mfa.listFactors` and
// `deleteFactor` for the service role, and their refusals: any other key or token (403
// `not_admin`), an unknown user (404 `user_not_found`), another user's or an unknown factor (404
// `mfa_factor_not_found`), ids that are not UUIDs. Deleting a factor puts the sessions it raised
// back to aal1 and lets the user in with her password alone.
import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../../server.ts';
import { clientFor, managementRows, signedUpClient } from '../clients.ts';

let localbase: Localbase;
let anonymousOn: Localbase;

beforeAll(async () => {
  [localbase, anonymousOn] = await Promise.all([
    startLocalbaseStack(),
    startLocalbaseStack({ auth: { anonymousSignIns: true } }),
  ]);
});

afterAll(async () => {
  await Promise.all([localbase?.close(), anonymousOn?.close()]);
});

const service = () => clientFor(localbase, localbase.serviceRoleKey);

function code(secret: string, steps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
}

function aalOf(accessToken: string | undefined): string {
  return (decodeJwt(accessToken as string) as { aal: string }).aal;
}

const sql = <T = unknown>(query: string): Promise<T[]> => managementRows<T>(localbase, query);

/** A signed-up user whose session is aal2 through a verified TOTP factor. */
async function userWithFactor(name: string) {
  const user = await signedUpClient(localbase, name);
  const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
  if (enrolled.error) throw enrolled.error;
  const verified = await user.client.auth.mfa.challengeAndVerify({
    factorId: enrolled.data.id,
    code: code(enrolled.data.totp.secret),
  });
  if (verified.error) throw verified.error;
  return { ...user, factorId: enrolled.data.id, secret: enrolled.data.totp.secret };
}

async function signIn(user: { email: string; password: string }): Promise<SupabaseClient> {
  const client = clientFor(localbase);
  const { error } = await client.auth.signInWithPassword(user);
  if (error) throw error;
  return client;
}

/**
 * The factor `deleteFactor` answers. auth-js passes GoTrue's body through its default wrapping
 * (no `xform`), so at run time `data` is `{data: <factor>, error: null}`, not the factor its types say.
 */
function deletedFactor(data: unknown): Record<string, unknown> | undefined {
  return (data as { data?: Record<string, unknown> } | null)?.data;
}

async function accessToken(client: SupabaseClient): Promise<string> {
  return (await client.auth.getSession()).data.session?.access_token as string;
}

function adminFetch(path: string, token: string, method = 'GET'): Promise<Response> {
  return fetch(`${localbase.url}/auth/v1${path}`, {
    method,
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'x-supabase-api-version': '2024-01-01' },
  });
}

describe('GET /settings', () => {
  const providers = [
    'apple',
    'azure',
    'bitbucket',
    'discord',
    'facebook',
    'figma',
    'fly',
    'github',
    'gitlab',
    'google',
    'keycloak',
    'kakao',
    'linkedin',
    'linkedin_oidc',
    'nextcloud',
    'notion',
    'spotify',
    'slack',
    'slack_oidc',
    'workos',
    'twitch',
    'twitter',
    'zoom',
  ];

  it("answers every key of GoTrue's settings with localbase's values, to the anon key", async () => {
    const answer = await fetch(`${localbase.url}/auth/v1/settings`, { headers: { apikey: localbase.anonKey } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown> & { external: Record<string, boolean> };
    expect(Object.keys(body).sort()).toEqual(
      ['disable_signup', 'external', 'mailer_autoconfirm', 'phone_autoconfirm', 'saml_enabled', 'sms_provider'].sort(),
    );
    expect(body).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: true,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    });
    expect(Object.keys(body.external).sort()).toEqual([...providers, 'anonymous_users', 'email', 'phone'].sort());
    expect(body.external).toMatchObject({ email: true, phone: false, anonymous_users: false });
    expect(providers.filter((provider) => body.external[provider] !== false)).toEqual([]);
  });

  it('says anonymous_users when anonymous sign-ins are on, and signInAnonymously then works', async () => {
    const answer = await fetch(`${anonymousOn.url}/auth/v1/settings`, { headers: { apikey: anonymousOn.anonKey } });
    const body = (await answer.json()) as { external: Record<string, boolean> };
    expect(body.external.anonymous_users).toBe(true);
    const { error } = await clientFor(anonymousOn).auth.signInAnonymously();
    expect(error).toBeNull();
  });

  it('agrees with what sign-up does: the new account is confirmed at once', async () => {
    const user = await signedUpClient(localbase, 'settings-autoconfirm');
    const { data } = await user.client.auth.getUser();
    expect(data.user?.email_confirmed_at).toBeTruthy();
  });

  it('is refused without an API key, as every /auth/v1 request', async () => {
    const answer = await fetch(`${localbase.url}/auth/v1/settings`);
    expect(answer.status).toBe(401);
  });
});

describe('auth.admin.mfa.listFactors', () => {
  it('lists every factor of the user, verified or not, in the shape of the user’s factors', async () => {
    const user = await userWithFactor('admin-list');
    const pending = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'spare' });
    expect(pending.error).toBeNull();
    const { data, error } = await service().auth.admin.mfa.listFactors({ userId: user.id });
    expect(error).toBeNull();
    expect(data?.factors.map((factor) => [factor.id, factor.status, factor.factor_type, factor.friendly_name])).toEqual(
      [
        [user.factorId, 'verified', 'totp', 'phone app'],
        [pending.data?.id, 'unverified', 'totp', 'spare'],
      ],
    );
    const own = (await service().auth.admin.getUserById(user.id)).data.user?.factors;
    expect(data?.factors).toEqual(own);
    expect(JSON.stringify(data)).not.toContain(user.secret);
  });

  it('answers an empty list for a user without factors', async () => {
    const user = await signedUpClient(localbase, 'admin-list-none');
    const { data, error } = await service().auth.admin.mfa.listFactors({ userId: user.id });
    expect(error).toBeNull();
    expect(data?.factors).toEqual([]);
  });

  it('refuses an unknown user with 404 user_not_found, and a path id that is not a UUID', async () => {
    const { error } = await service().auth.admin.mfa.listFactors({ userId: crypto.randomUUID() });
    expect(error?.status).toBe(404);
    expect(error?.code).toBe('user_not_found');
    const answer = await adminFetch('/admin/users/not-a-uuid/factors', localbase.serviceRoleKey);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ code: 'validation_failed', message: 'user_id must be an UUID' });
  });

  it('refuses the anon key and the user herself, even at aal2, with 403 not_admin', async () => {
    const user = await userWithFactor('admin-list-refused');
    // The admin API sends the client's key, not its session: a signed-in client is the anon key here.
    for (const client of [clientFor(localbase), user.client]) {
      const { data, error } = await client.auth.admin.mfa.listFactors({ userId: user.id });
      expect(data).toBeNull();
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('not_admin');
    }
    const ownToken = await accessToken(user.client);
    expect(aalOf(ownToken)).toBe('aal2');
    const raw = await adminFetch(`/admin/users/${user.id}/factors`, ownToken);
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual({ code: 'not_admin', message: 'User not allowed' });
    const forged = await adminFetch(`/admin/users/${user.id}/factors`, `${localbase.serviceRoleKey}x`);
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code: string }).code).toBe('bad_jwt');
  });
});

describe('auth.admin.mfa.deleteFactor', () => {
  it('deletes the factor, answers it, and puts the sessions it raised back to aal1', async () => {
    const user = await userWithFactor('admin-delete');
    expect(aalOf(await accessToken(user.client))).toBe('aal2');
    const { data, error } = await service().auth.admin.mfa.deleteFactor({ userId: user.id, id: user.factorId });
    expect(error).toBeNull();
    expect(deletedFactor(data)).toMatchObject({
      id: user.factorId,
      factor_type: 'totp',
      status: 'verified',
      friendly_name: 'phone app',
    });
    expect(JSON.stringify(data)).not.toContain(user.secret);
    expect((await service().auth.admin.mfa.listFactors({ userId: user.id })).data?.factors).toEqual([]);

    // The session lives on (GoTrue downgrades it, it does not end it); its next token is aal1.
    const refreshed = await user.client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(aalOf(refreshed.data.session?.access_token)).toBe('aal1');
    const amr = await sql<{ method: string }>(
      `select a.method from _localbase.session_amr a join auth.sessions s on s.id = a.session_id
       where s.user_id = '${user.id}'`,
    );
    expect(amr.map((row) => row.method)).not.toContain('totp');
  });

  it('lets a user who lost her authenticator in with her password alone', async () => {
    const user = await userWithFactor('admin-delete-lost');
    const before = await signIn(user);
    expect((await before.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ nextLevel: 'aal2' });
    expect((await service().auth.admin.mfa.deleteFactor({ userId: user.id, id: user.factorId })).error).toBeNull();

    const after = await signIn(user);
    expect((await after.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: 'aal1',
      nextLevel: 'aal1',
    });
    // What aal1 could not do while she had a verified factor, she now may.
    const password = await after.auth.updateUser({
      password: 'hollow pine lighthouse',
      current_password: user.password,
    } as never);
    expect(password.error).toBeNull();
    const enrolled = await after.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'new phone' });
    expect(enrolled.error).toBeNull();
  });

  it('deletes an unverified factor too', async () => {
    const user = await signedUpClient(localbase, 'admin-delete-unverified');
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const { data, error } = await service().auth.admin.mfa.deleteFactor({
      userId: user.id,
      id: enrolled.data?.id as string,
    });
    expect(error).toBeNull();
    expect(deletedFactor(data)).toMatchObject({ id: enrolled.data?.id, status: 'unverified' });
    expect((await user.client.auth.mfa.listFactors()).data?.all).toEqual([]);
  });

  it("leaves the other sessions' aal2 that another factor raised", async () => {
    const user = await userWithFactor('admin-delete-other');
    const second = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'spare' });
    const verified = await user.client.auth.mfa.challengeAndVerify({
      factorId: second.data?.id as string,
      code: code(second.data?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    // The session is now aal2 through the second factor: deleting the first leaves it so.
    expect((await service().auth.admin.mfa.deleteFactor({ userId: user.id, id: user.factorId })).error).toBeNull();
    const refreshed = await user.client.auth.refreshSession();
    expect(aalOf(refreshed.data.session?.access_token)).toBe('aal2');
  });

  it('refuses the anon key and the user herself (403 not_admin) and deletes nothing', async () => {
    const user = await userWithFactor('admin-delete-refused');
    for (const client of [clientFor(localbase), user.client]) {
      const { data, error } = await client.auth.admin.mfa.deleteFactor({ userId: user.id, id: user.factorId });
      expect(data).toBeNull();
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('not_admin');
    }
    const raw = await adminFetch(
      `/admin/users/${user.id}/factors/${user.factorId}`,
      await accessToken(user.client),
      'DELETE',
    );
    expect(raw.status).toBe(403);
    expect(((await raw.json()) as { code: string }).code).toBe('not_admin');
    expect((await service().auth.admin.mfa.listFactors({ userId: user.id })).data?.factors).toHaveLength(1);
    expect(aalOf((await user.client.auth.refreshSession()).data.session?.access_token)).toBe('aal2');
  });

  it("refuses another user's factor and an unknown one with 404 mfa_factor_not_found", async () => {
    const owner = await userWithFactor('admin-delete-owner');
    const other = await signedUpClient(localbase, 'admin-delete-stranger');
    for (const attempt of [
      { userId: other.id, id: owner.factorId },
      { userId: owner.id, id: crypto.randomUUID() },
    ]) {
      const { data, error } = await service().auth.admin.mfa.deleteFactor(attempt);
      expect(data).toBeNull();
      expect(error?.status).toBe(404);
      expect(error?.code).toBe('mfa_factor_not_found');
    }
    expect((await service().auth.admin.mfa.listFactors({ userId: owner.id })).data?.factors).toHaveLength(1);
  });

  it('refuses an unknown user with 404 user_not_found, and path ids that are not UUIDs', async () => {
    const owner = await userWithFactor('admin-delete-ids');
    const unknown = await service().auth.admin.mfa.deleteFactor({ userId: crypto.randomUUID(), id: owner.factorId });
    expect(unknown.error?.status).toBe(404);
    expect(unknown.error?.code).toBe('user_not_found');
    const badUser = await adminFetch(`/admin/users/nope/factors/${owner.factorId}`, localbase.serviceRoleKey, 'DELETE');
    expect(badUser.status).toBe(404);
    expect(await badUser.json()).toEqual({ code: 'validation_failed', message: 'user_id must be an UUID' });
    const badFactor = await adminFetch(`/admin/users/${owner.id}/factors/nope`, localbase.serviceRoleKey, 'DELETE');
    expect(badFactor.status).toBe(404);
    expect(await badFactor.json()).toEqual({ code: 'validation_failed', message: 'factor_id must be an UUID' });
    expect((await service().auth.admin.mfa.listFactors({ userId: owner.id })).data?.factors).toHaveLength(1);
  });
});

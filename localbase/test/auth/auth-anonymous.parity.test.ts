// Anonymous sign-in (supabase-js signInAnonymously(): POST /signup without credentials): off by
// default, as on a new hosted project, refused with GoTrue's anonymous_provider_disabled; when on,
// a user with is_anonymous and the authenticated role, who can use the Data API as herself, cannot
// enroll factors or set a password without an address, and becomes permanent by
// updateUser({email, password}).
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../../server.ts';
import { clientFor, managementQuery } from '../clients.ts';

let enabled: Localbase;
let disabled: Localbase;

beforeAll(async () => {
  [enabled, disabled] = await Promise.all([
    startLocalbaseStack({ auth: { anonymousSignIns: true } }),
    startLocalbaseStack(),
  ]);
});

afterAll(async () => {
  await Promise.all([enabled?.close(), disabled?.close()]);
});

let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${(counter += 1)}@example.com`;

async function userCount(localbase: Localbase): Promise<number> {
  const response = await managementQuery(localbase, 'select count(*)::int as n from auth.users');
  return ((await response.json()) as { n: number }[])[0]?.n ?? -1;
}

describe('when anonymous sign-ins are off (the default)', () => {
  it('refuses with 422 anonymous_provider_disabled and creates nobody', async () => {
    const before = await userCount(disabled);
    const { data, error } = await clientFor(disabled).auth.signInAnonymously();
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('anonymous_provider_disabled');
    expect(error?.message).toBe('Anonymous sign-ins are disabled');
    expect(data.session).toBeNull();
    expect(await userCount(disabled)).toBe(before);
  });

  it('answers the legacy shape without the API version header', async () => {
    const response = await fetch(`${disabled.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: disabled.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ data: {} }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      code: 422,
      error_code: 'anonymous_provider_disabled',
      msg: 'Anonymous sign-ins are disabled',
    });
  });
});

describe('when anonymous sign-ins are on', () => {
  it('signs in a user with is_anonymous, the authenticated role and amr anonymous', async () => {
    const client = clientFor(enabled);
    const { data, error } = await client.auth.signInAnonymously({ options: { data: { nickname: 'owl' } } });
    expect(error).toBeNull();
    const user = data.user;
    expect(user).toMatchObject({
      is_anonymous: true,
      role: 'authenticated',
      aud: 'authenticated',
      email: '',
      identities: [],
      app_metadata: { provider: 'anonymous', providers: ['anonymous'] },
      user_metadata: { nickname: 'owl' },
    });
    const claims = decodeJwt(data.session?.access_token as string);
    expect(claims).toMatchObject({ is_anonymous: true, role: 'authenticated', sub: user?.id, aal: 'aal1' });
    expect((claims.amr as { method: string }[]).map((entry) => entry.method)).toEqual(['anonymous']);

    // The session is a real one: /user, refresh (still anonymous), the Data API as the user.
    expect((await client.auth.getUser()).data.user?.id).toBe(user?.id);
    const refreshed = await client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(decodeJwt(refreshed.data.session?.access_token as string)).toMatchObject({
      is_anonymous: true,
      amr: [expect.objectContaining({ method: 'anonymous' })],
    });
    const { error: restError } = await client.from('users').select('id');
    expect(restError).toBeNull();
  });

  it('gives every anonymous sign-in a user of its own', async () => {
    const [a, b] = await Promise.all([
      clientFor(enabled).auth.signInAnonymously(),
      clientFor(enabled).auth.signInAnonymously(),
    ]);
    expect(a.data.user?.id).toBeDefined();
    expect(a.data.user?.id).not.toBe(b.data.user?.id);
  });

  it('refuses a password without an address, factors and reauthentication, as GoTrue does', async () => {
    const client = clientFor(enabled);
    await client.auth.signInAnonymously();
    const password = await client.auth.updateUser({ password: 'maple harbour lantern' });
    expect(password.error?.status).toBe(422);
    expect(password.error?.code).toBe('validation_failed');
    expect(password.error?.message).toBe(
      'Updating password of an anonymous user without an email or phone is not allowed',
    );
    const factor = await client.auth.mfa.enroll({ factorType: 'totp' });
    expect(factor.error?.status).toBe(403);
    expect(factor.error?.code).toBe('no_authorization');
    expect(factor.error?.message).toBe('Anonymous user not allowed to perform these actions');
    const reauthenticate = await client.auth.reauthenticate();
    expect(reauthenticate.error?.code).toBe('validation_failed');
    expect((await client.auth.getUser()).data.user?.is_anonymous).toBe(true);
  });

  it('becomes a permanent user by updateUser({email, password}), who then signs in with them', async () => {
    const client = clientFor(enabled);
    const { data } = await client.auth.signInAnonymously();
    const id = data.user?.id;
    const email = uniqueEmail('converted');
    const password = 'quiet river compass';
    const updated = await client.auth.updateUser({ email, password });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ id, email, is_anonymous: false });
    expect(updated.data.user?.email_confirmed_at).toBeTruthy();
    expect(updated.data.user?.identities?.map((identity) => identity.provider)).toEqual(['email']);
    expect(updated.data.user?.app_metadata.providers).toEqual(['email']);

    // The next access token says so too, and the address and password sign her in.
    const refreshed = await client.auth.refreshSession();
    expect(decodeJwt(refreshed.data.session?.access_token as string)).toMatchObject({ is_anonymous: false, email });
    const signIn = await clientFor(enabled).auth.signInWithPassword({ email, password });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.id).toBe(id);
  });

  it("refuses converting to another account's address (422 email_exists) and stays anonymous", async () => {
    const taken = uniqueEmail('taken');
    expect((await clientFor(enabled).auth.signUp({ email: taken, password: 'amber meadow falcon' })).error).toBeNull();
    const client = clientFor(enabled);
    await client.auth.signInAnonymously();
    const { error } = await client.auth.updateUser({ email: taken, password: 'copper valley whistle' });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('email_exists');
    const user = (await client.auth.getUser()).data.user;
    expect(user).toMatchObject({ is_anonymous: true, email: '' });
    const signIn = await clientFor(enabled).auth.signInWithPassword({
      email: taken,
      password: 'copper valley whistle',
    });
    expect(signIn.error?.code).toBe('invalid_credentials');
  });
});

// Account self-service through supabase-js: PUT /user (password with proof of ownership, e-mail
// change confirmed by the new address, metadata), /reauthenticate, and logout scopes ending access
// tokens as well as refresh tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../server.ts';
import { clientFor, signedUpClient } from './clients.ts';
import { nextMail, outboxFor, tokensOf } from './outbox.ts';

let localbase: Localbase;

beforeAll(async () => {
  localbase = await startLocalbaseStack();
});

afterAll(async () => {
  await localbase?.close();
});

const anon = () => clientFor(localbase);

async function rest(accessToken: string): Promise<number> {
  const response = await fetch(`${localbase.url}/rest/v1/users?select=id`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}` },
  });
  return response.status;
}

async function accessTokenOf(client: ReturnType<typeof anon>): Promise<string> {
  return (await client.auth.getSession()).data.session?.access_token as string;
}

describe('PUT /user: password', () => {
  it('needs the current password, refuses a wrong or weak or unchanged one, and ends the other sessions', async () => {
    const user = await signedUpClient(localbase, 'changer');
    const other = anon();
    await other.auth.signInWithPassword({ email: user.email, password: user.password });
    const otherToken = await accessTokenOf(other);

    const missing = await user.client.auth.updateUser({ password: 'amber meadow crossing' });
    expect(missing.error?.status).toBe(400);
    expect(missing.error?.code).toBe('reauthentication_needed');
    const wrong = await user.client.auth.updateUser({
      password: 'amber meadow crossing',
      current_password: 'not the password',
    });
    expect(wrong.error?.code).toBe('invalid_credentials');
    const weak = await user.client.auth.updateUser({ password: '12345678', current_password: user.password });
    expect(weak.error?.status).toBe(422);
    expect(weak.error?.code).toBe('weak_password');
    const same = await user.client.auth.updateUser({ password: user.password, current_password: user.password });
    expect(same.error?.code).toBe('same_password');
    expect(await rest(otherToken)).toBe(200);

    const changed = await user.client.auth.updateUser({
      password: 'amber meadow crossing',
      current_password: user.password,
    });
    expect(changed.error).toBeNull();
    expect(await rest(await accessTokenOf(user.client))).toBe(200);
    expect(await rest(otherToken)).toBe(401);
    expect((await anon().auth.signInWithPassword({ email: user.email, password: user.password })).error?.code).toBe(
      'invalid_credentials',
    );
    expect(
      (await anon().auth.signInWithPassword({ email: user.email, password: 'amber meadow crossing' })).error,
    ).toBeNull();
  });

  it('takes the reauthentication code instead of the current password, once', async () => {
    const user = await signedUpClient(localbase, 'nonce');
    expect((await user.client.auth.reauthenticate()).error).toBeNull();
    const mail = await nextMail(localbase, user.email);
    expect(mail.subject).toBe('Confirm reauthentication');
    const { otp } = tokensOf(mail);
    const wrongNonce = otp === '000000' ? '111111' : '000000';
    const refused = await user.client.auth.updateUser({ password: 'quiet harbour lights', nonce: wrongNonce });
    expect(refused.error?.code).toBe('reauthentication_not_valid');
    const accepted = await user.client.auth.updateUser({ password: 'quiet harbour lights', nonce: otp });
    expect(accepted.error).toBeNull();
    const reused = await user.client.auth.updateUser({ password: 'another quiet harbour', nonce: otp });
    expect(reused.error?.code).toBe('reauthentication_not_valid');
  });

  it('refuses a caller without a live session', async () => {
    const user = await signedUpClient(localbase, 'gone');
    const token = await accessTokenOf(user.client);
    await user.client.auth.signOut({ scope: 'local' });
    const response = await fetch(`${localbase.url}/auth/v1/user`, {
      method: 'PUT',
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { nick: 'x' } }),
    });
    expect(response.status).toBe(403);
  });
});

describe('PUT /user: e-mail and data', () => {
  it('mails the new address and changes it only when its link is verified', async () => {
    const user = await signedUpClient(localbase, 'mover');
    const newEmail = `moved-${process.pid}@example.com`;
    const requested = await user.client.auth.updateUser({ email: newEmail });
    expect(requested.error).toBeNull();
    expect(requested.data.user?.email).toBe(user.email);
    expect(requested.data.user?.new_email).toBe(newEmail);
    const mail = await nextMail(localbase, newEmail);
    expect(mail.subject).toBe('Confirm Email Change');
    expect(await outboxFor(localbase, user.email)).toEqual([]);
    const { secret } = tokensOf(mail);
    const wrongType = await anon().auth.verifyOtp({ token_hash: secret, type: 'recovery' });
    expect(wrongType.error?.code).toBe('otp_expired');
    const verified = await anon().auth.verifyOtp({ token_hash: secret, type: 'email_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(newEmail);
    expect(verified.data.user?.new_email).toBeUndefined();
    expect((await anon().auth.signInWithPassword({ email: newEmail, password: user.password })).error).toBeNull();
    const reused = await anon().auth.verifyOtp({ token_hash: secret, type: 'email_change' });
    expect(reused.error?.code).toBe('otp_expired');
  });

  it("refuses another account's address (422 email_exists)", async () => {
    const user = await signedUpClient(localbase, 'squat');
    const owner = await signedUpClient(localbase, 'owner');
    const { error } = await user.client.auth.updateUser({ email: owner.email });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('email_exists');
  });

  it('merges data into user_metadata; null removes a key', async () => {
    const user = await signedUpClient(localbase, 'meta');
    await user.client.auth.updateUser({ data: { nick: 'ada', color: 'blue' } });
    const { data } = await user.client.auth.updateUser({ data: { color: null, term: 2 } });
    expect(data.user?.user_metadata).toEqual({ nick: 'ada', term: 2 });
  });
});

describe('logout scopes', () => {
  it('global ends every session: refresh tokens and access tokens', async () => {
    const user = await signedUpClient(localbase, 'global');
    const other = anon();
    await other.auth.signInWithPassword({ email: user.email, password: user.password });
    const tokens = [await accessTokenOf(user.client), await accessTokenOf(other)];
    const otherRefresh = (await other.auth.getSession()).data.session?.refresh_token as string;
    expect((await user.client.auth.signOut({ scope: 'global' })).error).toBeNull();
    for (const token of tokens) expect(await rest(token)).toBe(401);
    const refreshed = await anon().auth.refreshSession({ refresh_token: otherRefresh });
    expect(refreshed.error?.code).toBe('refresh_token_not_found');
  });

  it('others keeps the caller and ends the rest', async () => {
    const user = await signedUpClient(localbase, 'others');
    const other = anon();
    await other.auth.signInWithPassword({ email: user.email, password: user.password });
    const otherToken = await accessTokenOf(other);
    expect((await user.client.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect(await rest(await accessTokenOf(user.client))).toBe(200);
    expect(await rest(otherToken)).toBe(401);
  });
});

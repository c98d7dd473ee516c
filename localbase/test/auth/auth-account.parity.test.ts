// Account self-service through supabase-js: PUT /user (password with proof of ownership, e-mail
// change confirmed by both addresses, or by the new one alone where config.toml's
// double_confirm_changes is false; metadata), /reauthenticate, and logout scopes ending access
// tokens as well as refresh tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../../server.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { nextMail, outboxFor, tokensOf } from '../outbox.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

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
  it('mails both addresses and changes the address only once both links are verified', async () => {
    const user = await signedUpClient(localbase, 'mover');
    const newEmail = `moved-${process.pid}@example.com`;
    const requested = await user.client.auth.updateUser({ email: newEmail });
    expect(requested.error).toBeNull();
    expect(requested.data.user?.email).toBe(user.email);
    expect(requested.data.user?.new_email).toBe(newEmail);
    const toNew = await nextMail(localbase, newEmail);
    const toCurrent = await nextMail(localbase, user.email);
    for (const mail of [toNew, toCurrent]) {
      expect(mail.subject).toBe('Confirm Email Change');
      expect(tokensOf(mail).link.searchParams.get('type')).toBe('email_change');
    }
    expect(toNew.text).toContain(`Confirm the change of your e-mail address from ${user.email} to this one`);
    expect(toNew.text).toContain(`the one sent to ${user.email} have both been followed`);
    expect(toCurrent.text).toContain(`Confirm the change of your e-mail address from ${user.email} to ${newEmail}`);
    expect(toCurrent.text).toContain(`the one sent to ${newEmail} have both been followed`);
    expect(toCurrent.text).toContain('If you did not ask for this, do not follow the link');

    const wrongType = await anon().auth.verifyOtp({ token_hash: tokensOf(toNew).secret, type: 'recovery' });
    expect(wrongType.error?.code).toBe('otp_expired');
    // The first confirmation (here the current address's) is counted, and answered without a session
    // (GoTrue's `{msg}`, which supabase-js hands back as neither user nor session).
    const first = await anon().auth.verifyOtp({ token_hash: tokensOf(toCurrent).secret, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    const again = await anon().auth.verifyOtp({ token_hash: tokensOf(toCurrent).secret, type: 'email_change' });
    expect(again.error?.code).toBe('otp_expired');
    expect((await user.client.auth.getUser()).data.user).toMatchObject({ email: user.email, new_email: newEmail });

    const second = await anon().auth.verifyOtp({ token_hash: tokensOf(toNew).secret, type: 'email_change' });
    expect(second.error).toBeNull();
    expect(second.data.session?.access_token).toBeTruthy();
    expect(second.data.user?.email).toBe(newEmail);
    expect(second.data.user?.new_email).toBeUndefined();
    expect((await anon().auth.signInWithPassword({ email: newEmail, password: user.password })).error).toBeNull();
    const reused = await anon().auth.verifyOtp({ token_hash: tokensOf(toNew).secret, type: 'email_change' });
    expect(reused.error?.code).toBe('otp_expired');
  });

  it("takes each address's code with that address, and a new request or a resend starts the count over", async () => {
    const user = await signedUpClient(localbase, 'coder');
    const newEmail = `coded-${process.pid}@example.com`;
    await user.client.auth.updateUser({ email: newEmail });
    const toNew = tokensOf(await nextMail(localbase, newEmail));
    const toCurrent = tokensOf(await nextMail(localbase, user.email));
    // A code is checked with the address it was sent to: the other address's code does not fit.
    const crossed = await anon().auth.verifyOtp({ email: user.email, token: toNew.otp, type: 'email_change' });
    expect(crossed.error?.code).toBe('otp_expired');
    const byNewCode = await anon().auth.verifyOtp({ email: newEmail, token: toNew.otp, type: 'email_change' });
    expect(byNewCode.error).toBeNull();
    expect(byNewCode.data.session).toBeNull();

    // Resending asks both addresses again: the first confirmation no longer counts.
    expect((await anon().auth.resend({ type: 'email_change', email: user.email })).error).toBeNull();
    const resentNew = tokensOf(await nextMail(localbase, newEmail, 1));
    const resentCurrent = tokensOf(await nextMail(localbase, user.email, 1));
    expect((await anon().auth.verifyOtp({ token_hash: toCurrent.secret, type: 'email_change' })).error?.code).toBe(
      'otp_expired',
    );
    const first = await anon().auth.verifyOtp({ email: user.email, token: resentCurrent.otp, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    const second = await anon().auth.verifyOtp({ email: newEmail, token: resentNew.otp, type: 'email_change' });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(newEmail);
  });

  it('forgets the links of an earlier request for another address', async () => {
    const user = await signedUpClient(localbase, 'changer-mind');
    const firstChoice = `first-choice-${process.pid}@example.com`;
    const secondChoice = `second-choice-${process.pid}@example.com`;
    await user.client.auth.updateUser({ email: firstChoice });
    const firstLink = tokensOf(await nextMail(localbase, firstChoice));
    await user.client.auth.updateUser({ email: secondChoice });
    await nextMail(localbase, secondChoice);
    const stale = await anon().auth.verifyOtp({ token_hash: firstLink.secret, type: 'email_change' });
    expect(stale.error?.code).toBe('otp_expired');
    expect((await user.client.auth.getUser()).data.user?.new_email).toBe(secondChoice);
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

describe('e-mail change with double_confirm_changes = false', () => {
  let single: Localbase;

  beforeAll(async () => {
    single = await startLocalbaseStack({ auth: { doubleConfirmEmailChanges: false } });
  });

  afterAll(async () => {
    await single?.close();
  });

  it('mails only the new address, whose link alone changes the address', async () => {
    const user = await signedUpClient(single, 'single');
    const newEmail = `single-moved-${process.pid}@example.com`;
    expect((await user.client.auth.updateUser({ email: newEmail })).data.user?.new_email).toBe(newEmail);
    const mail = await nextMail(single, newEmail);
    expect(mail.text).toContain(`Confirm the change of your e-mail address from ${user.email} to this one`);
    expect(mail.text).not.toContain('have both been followed');
    const verified = await clientFor(single).auth.verifyOtp({
      token_hash: tokensOf(mail).secret,
      type: 'email_change',
    });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(newEmail);
    expect(await outboxFor(single, user.email)).toEqual([]);
  });

  it('refuses a link for the current address (400 validation_failed, as GoTrue)', async () => {
    const user = await signedUpClient(single, 'single-link');
    const { error } = await clientFor(single, single.serviceRoleKey).auth.admin.generateLink({
      type: 'email_change_current',
      email: user.email,
      newEmail: `single-link-new-${process.pid}@example.com`,
    });
    expect(error?.status).toBe(400);
    expect(error?.code).toBe('validation_failed');
    expect(error?.message).toBe('Enable secure email change to generate link for current email');
  });
});

// Getting back in by e-mail, driven through supabase-js as a real client: recovery, magic link,
// resend, verify (POST with token_hash or e-mail and code; GET following the link), generate_link,
// and the outbox the mail lands in. Grants and refusals: an unknown address gets 200 and no mail,
// a link works once, within its hour, for its own type, and never redirects to a foreign site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '../../server.ts';
import { MAX_FAILED_OTP_ATTEMPTS } from '../../src/auth/one-time-tokens.ts';
import { clientFor, managementQuery, signedUpClient } from '../clients.ts';
import { nextMail, outboxFor, readOutbox, tokensOf } from '../outbox.ts';

const SITE = 'http://study.example:3000';
let localbase: Localbase;

beforeAll(async () => {
  localbase = await startLocalbaseStack({
    auth: { siteUrl: SITE, redirectAllowList: ['https://companion.example/**'] },
  });
});

afterAll(async () => {
  await localbase?.close();
});

const anon = () => clientFor(localbase);
const service = () => clientFor(localbase, localbase.serviceRoleKey);

async function rest(accessToken: string): Promise<number> {
  const response = await fetch(`${localbase.url}/rest/v1/users?select=id`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${accessToken}` },
  });
  return response.status;
}

describe('recover', () => {
  it('mails a recovery link and code; the link signs in once, confirms the e-mail and allows a new password', async () => {
    const user = await signedUpClient(localbase, 'recover');
    await managementQuery(localbase, `update auth.users set email_confirmed_at = null where email = '${user.email}'`);
    const { error } = await anon().auth.resetPasswordForEmail(user.email, { redirectTo: `${SITE}/reset` });
    expect(error).toBeNull();
    const mail = await nextMail(localbase, user.email);
    expect(mail.subject).toBe('Reset Your Password');
    const { secret, otp, link } = tokensOf(mail);
    expect(link.pathname).toBe('/auth/v1/verify');
    expect(link.searchParams.get('type')).toBe('recovery');
    expect(link.searchParams.get('redirect_to')).toBe(`${SITE}/reset`);
    expect(otp).toMatch(/^\d{6}$/);
    expect(mail.html).toContain('<a href=');

    // Only the digest is stored.
    const stored = await (await managementQuery(localbase, 'select token_hash from _localbase.auth_tokens')).json();
    expect(JSON.stringify(stored)).not.toContain(secret);

    const client = anon();
    const verified = await client.auth.verifyOtp({ token_hash: secret, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.id).toBe(user.id);
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    expect(await rest(verified.data.session?.access_token as string)).toBe(200);
    // A recovery session may set the password without the old one.
    const changed = await client.auth.updateUser({ password: 'new lantern of the valley' });
    expect(changed.error).toBeNull();
    const login = await anon().auth.signInWithPassword({ email: user.email, password: 'new lantern of the valley' });
    expect(login.error).toBeNull();

    const reused = await anon().auth.verifyOtp({ token_hash: secret, type: 'recovery' });
    expect(reused.error?.status).toBe(403);
    expect(reused.error?.code).toBe('otp_expired');
  });

  it('answers 200 for an unknown address and sends nothing', async () => {
    const email = `nobody-${process.pid}@example.com`;
    const { error } = await anon().auth.resetPasswordForEmail(email);
    expect(error).toBeNull();
    // A known address sent after it arrives first if the unknown one was going to be mailed at all.
    const known = await signedUpClient(localbase, 'known');
    await anon().auth.resetPasswordForEmail(known.email);
    await nextMail(localbase, known.email);
    expect(await outboxFor(localbase, email)).toEqual([]);
  });

  it('refuses a link of another type, an expired link and a made-up one', async () => {
    const user = await signedUpClient(localbase, 'types');
    await anon().auth.resetPasswordForEmail(user.email);
    const { secret } = tokensOf(await nextMail(localbase, user.email));
    const wrongType = await anon().auth.verifyOtp({ token_hash: secret, type: 'magiclink' });
    expect(wrongType.error?.code).toBe('otp_expired');
    await managementQuery(
      localbase,
      `update _localbase.auth_tokens set expires_at = now() - interval '1 second'
       where user_id = '${user.id}'`,
    );
    const expired = await anon().auth.verifyOtp({ token_hash: secret, type: 'recovery' });
    expect(expired.error?.status).toBe(403);
    expect(expired.error?.code).toBe('otp_expired');
    const madeUp = await anon().auth.verifyOtp({ token_hash: 'f'.repeat(64), type: 'recovery' });
    expect(madeUp.error?.code).toBe('otp_expired');
  });

  it('replaces an older link by the newer one', async () => {
    const user = await signedUpClient(localbase, 'newest');
    await anon().auth.resetPasswordForEmail(user.email);
    const first = tokensOf(await nextMail(localbase, user.email));
    await anon().auth.resetPasswordForEmail(user.email);
    const second = tokensOf(await nextMail(localbase, user.email, 1));
    expect((await anon().auth.verifyOtp({ token_hash: first.secret, type: 'recovery' })).error?.code).toBe(
      'otp_expired',
    );
    expect((await anon().auth.verifyOtp({ token_hash: second.secret, type: 'recovery' })).error).toBeNull();
  });
});

describe('GET /verify (the link in the mail)', () => {
  async function follow(url: string): Promise<{ status: number; location: URL }> {
    const response = await fetch(url, { redirect: 'manual', headers: { apikey: localbase.anonKey } });
    return { status: response.status, location: new URL(response.headers.get('location') ?? '') };
  }

  it('redirects (303) to redirect_to with the session in the fragment, once', async () => {
    const user = await signedUpClient(localbase, 'follow');
    await anon().auth.resetPasswordForEmail(user.email, { redirectTo: 'https://companion.example/app/reset' });
    const mail = await nextMail(localbase, user.email);
    const { status, location } = await follow(mail.link as string);
    expect(status).toBe(303);
    expect(`${location.origin}${location.pathname}`).toBe('https://companion.example/app/reset');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('type')).toBe('recovery');
    expect(fragment.get('token_type')).toBe('bearer');
    expect(await rest(fragment.get('access_token') as string)).toBe(200);
    expect(fragment.get('refresh_token')).toBeTruthy();

    const again = await follow(mail.link as string);
    expect(again.status).toBe(303);
    const refused = new URLSearchParams(again.location.hash.slice(1));
    expect(refused.get('error_code')).toBe('otp_expired');
    expect(refused.get('access_token')).toBeNull();
  });

  it('never redirects to a foreign site: a foreign redirect_to becomes the site URL', async () => {
    const user = await signedUpClient(localbase, 'foreign');
    await anon().auth.resetPasswordForEmail(user.email, { redirectTo: 'https://evil.example/steal' });
    const mail = await nextMail(localbase, user.email);
    expect(new URL(mail.link as string).searchParams.get('redirect_to')).toBe(SITE);
    // A link whose redirect_to was edited afterwards does not go there either.
    const tampered = new URL(mail.link as string);
    for (const target of [
      'https://evil.example/steal',
      'javascript:alert(1)',
      'https://companion.example.evil.example/',
    ]) {
      tampered.searchParams.set('redirect_to', target);
      const { location } = await follow(tampered.toString());
      expect(location.origin).toBe(new URL(SITE).origin);
    }
  });
});

describe('magic link and codes', () => {
  it('mails a magic link to an existing user; the code signs in with the e-mail', async () => {
    const user = await signedUpClient(localbase, 'magic');
    const { error } = await anon().auth.signInWithOtp({ email: user.email });
    expect(error).toBeNull();
    const mail = await nextMail(localbase, user.email);
    expect(mail.subject).toBe('Your Magic Link');
    const { otp } = tokensOf(mail);
    const wrongType = await anon().auth.verifyOtp({ email: user.email, token: otp, type: 'recovery' });
    expect(wrongType.error?.code).toBe('otp_expired');
    const signedIn = await anon().auth.verifyOtp({ email: user.email, token: otp, type: 'email' });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.session?.user.id).toBe(user.id);
    const reused = await anon().auth.verifyOtp({ email: user.email, token: otp, type: 'email' });
    expect(reused.error?.code).toBe('otp_expired');
  });

  it('creates no account for an unknown address (200, no mail)', async () => {
    const email = `stranger-${process.pid}@example.com`;
    expect((await anon().auth.signInWithOtp({ email })).error).toBeNull();
    const known = await signedUpClient(localbase, 'magic-known');
    await anon().auth.signInWithOtp({ email: known.email });
    await nextMail(localbase, known.email);
    expect(await outboxFor(localbase, email)).toEqual([]);
    const listed = await service().auth.admin.listUsers({ perPage: 1000 });
    expect(listed.data.users.some((user) => user.email === email)).toBe(false);
  });

  it(`ends a code after ${MAX_FAILED_OTP_ATTEMPTS} wrong guesses`, async () => {
    const user = await signedUpClient(localbase, 'guess');
    await anon().auth.signInWithOtp({ email: user.email });
    const { otp } = tokensOf(await nextMail(localbase, user.email));
    const wrong = otp === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < MAX_FAILED_OTP_ATTEMPTS; attempt += 1) {
      const guess = await anon().auth.verifyOtp({ email: user.email, token: wrong, type: 'email' });
      expect(guess.error?.code).toBe('otp_expired');
    }
    const right = await anon().auth.verifyOtp({ email: user.email, token: otp, type: 'email' });
    expect(right.error?.code).toBe('otp_expired');
  });

  it('resends the sign-up confirmation to an unconfirmed account only', async () => {
    const email = `unconfirmed-${process.pid}@example.com`;
    await service().auth.admin.createUser({ email, password: 'violet lantern tide' });
    expect((await anon().auth.resend({ type: 'signup', email })).error).toBeNull();
    const mail = await nextMail(localbase, email);
    expect(mail.subject).toBe('Confirm Your Signup');
    const confirmed = await anon().auth.verifyOtp({ token_hash: tokensOf(mail).secret, type: 'signup' });
    expect(confirmed.error).toBeNull();
    expect(confirmed.data.user?.email_confirmed_at).toBeTruthy();
    // Confirmed now: a second resend sends nothing.
    await anon().auth.resend({ type: 'signup', email });
    await anon().auth.resetPasswordForEmail(email);
    expect((await nextMail(localbase, email, 1)).subject).toBe('Reset Your Password');
    expect((await outboxFor(localbase, email)).map((message) => message.subject)).toEqual([
      'Reset Your Password',
      'Confirm Your Signup',
    ]);
  });
});

describe('admin generate_link', () => {
  it('answers GoTrue shape for a service-role caller, and an invite link confirms the e-mail', async () => {
    const email = `invited-${process.pid}@example.com`;
    const { data, error } = await service().auth.admin.generateLink({
      type: 'invite',
      email,
      options: { redirectTo: `${SITE}/welcome` },
    });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.email_confirmed_at).toBeFalsy();
    expect(data.properties).toMatchObject({ verification_type: 'invite', redirect_to: `${SITE}/welcome` });
    expect(data.properties?.email_otp).toMatch(/^\d{6}$/);
    expect(data.properties?.action_link).toContain(`token=${data.properties?.hashed_token}`);
    // As GoTrue, a plain redirect URL is written into the link as it is; the invite is recorded.
    expect(data.properties?.action_link).toContain(`&redirect_to=${SITE}/welcome`);
    expect(data.user?.invited_at).toBeTruthy();
    // generate_link does not send mail.
    expect(await outboxFor(localbase, email)).toEqual([]);
    const accepted = await anon().auth.verifyOtp({
      token_hash: data.properties?.hashed_token as string,
      type: 'invite',
    });
    expect(accepted.error).toBeNull();
    expect(accepted.data.user?.email_confirmed_at).toBeTruthy();
  });

  it('makes recovery and magic links for existing users only, and a signup link only for a new address', async () => {
    const user = await signedUpClient(localbase, 'linked');
    const recovery = await service().auth.admin.generateLink({ type: 'recovery', email: user.email });
    expect(recovery.error).toBeNull();
    const magic = await service().auth.admin.generateLink({ type: 'magiclink', email: user.email });
    expect(magic.error).toBeNull();
    const unknown = await service().auth.admin.generateLink({
      type: 'magiclink',
      email: `none-${process.pid}@example.com`,
    });
    expect(unknown.error?.status).toBe(404);
    const taken = await service().auth.admin.generateLink({
      type: 'signup',
      email: user.email,
      password: 'violet lantern tide',
    });
    expect(taken.error?.status).toBe(422);
    expect(taken.error?.code).toBe('email_exists');
    const weak = await service().auth.admin.generateLink({
      type: 'signup',
      email: `weak-link-${process.pid}@example.com`,
      password: 'password',
    });
    expect(weak.error?.code).toBe('weak_password');
  });

  it('makes e-mail change links: the user shows new_email, and both links together switch the address', async () => {
    const user = await signedUpClient(localbase, 'change-link');
    const newEmail = `changed-link-${process.pid}@example.com`;
    const hashes: string[] = [];
    for (const type of ['email_change_current', 'email_change_new'] as const) {
      const { data, error } = await service().auth.admin.generateLink({
        type,
        email: user.email,
        newEmail,
        options: { redirectTo: `${SITE}/settings` },
      });
      expect(error).toBeNull();
      expect(data.user?.email).toBe(user.email);
      expect(data.user?.new_email).toBe(newEmail);
      expect(data.properties).toMatchObject({ verification_type: type, redirect_to: `${SITE}/settings` });
      expect(data.properties?.action_link).toMatch(/[?&]type=email_change&/);
      hashes.push(data.properties?.hashed_token as string);
    }
    // As GoTrue with secure e-mail change: the first link followed is one of two confirmations.
    const [current, added] = hashes;
    const first = await anon().auth.verifyOtp({ token_hash: current as string, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    expect((await service().auth.admin.getUserById(user.id)).data.user?.email).toBe(user.email);
    const switched = await anon().auth.verifyOtp({ token_hash: added as string, type: 'email_change' });
    expect(switched.error).toBeNull();
    expect(switched.data.user?.email).toBe(newEmail);

    const other = await signedUpClient(localbase, 'change-link-taken');
    const taken = await service().auth.admin.generateLink({ type: 'email_change_new', email: other.email, newEmail });
    expect(taken.error?.status).toBe(422);
    expect(taken.error?.code).toBe('email_exists');
    const unknown = await service().auth.admin.generateLink({
      type: 'email_change_new',
      email: `nobody-${process.pid}@example.com`,
      newEmail: `nobody-new-${process.pid}@example.com`,
    });
    expect(unknown.error?.status).toBe(404);
    const invalid = await service().auth.admin.generateLink({
      type: 'email_change_new',
      email: other.email,
      newEmail: 'x',
    });
    expect(invalid.error?.message).toBe('Unable to validate email address: invalid format');
    expect((await service().auth.admin.getUserById(other.id)).data.user?.new_email).toBeUndefined();
  });

  it('refuses a caller without the service role (403 not_admin)', async () => {
    const user = await signedUpClient(localbase, 'not-admin');
    for (const client of [anon(), user.client]) {
      const { error } = await client.auth.admin.generateLink({ type: 'recovery', email: user.email });
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('not_admin');
    }
  });
});

describe('admin invite', () => {
  it('creates an unconfirmed, invited user and mails a link that signs in once and confirms the e-mail', async () => {
    const email = `invitee-${process.pid}@example.com`;
    const { data, error } = await service().auth.admin.inviteUserByEmail(email, {
      data: { team: 'chemistry' },
      redirectTo: `${SITE}/welcome`,
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, user_metadata: { team: 'chemistry' } });
    expect(data.user?.invited_at).toBeTruthy();
    expect(data.user?.email_confirmed_at).toBeFalsy();
    const mail = await nextMail(localbase, email);
    expect(mail.subject).toBe('You have been invited');
    const { secret, link } = tokensOf(mail);
    expect(link.searchParams.get('type')).toBe('invite');
    expect(link.searchParams.get('redirect_to')).toBe(`${SITE}/welcome`);
    const accepted = await anon().auth.verifyOtp({ token_hash: secret, type: 'invite' });
    expect(accepted.error).toBeNull();
    expect(accepted.data.user?.email_confirmed_at).toBeTruthy();
    expect((await anon().auth.verifyOtp({ token_hash: secret, type: 'invite' })).error?.code).toBe('otp_expired');
  });

  it('refuses a confirmed address, an invalid one and a caller without the service role', async () => {
    const user = await signedUpClient(localbase, 'invite-taken');
    const taken = await service().auth.admin.inviteUserByEmail(user.email);
    expect(taken.error?.status).toBe(422);
    expect(taken.error?.code).toBe('email_exists');
    const invalid = await service().auth.admin.inviteUserByEmail('not-an-address');
    expect(invalid.error?.status).toBe(400);
    expect(invalid.error?.message).toBe('Unable to validate email address: invalid format');
    const email = `invite-refused-${process.pid}@example.com`;
    for (const client of [anon(), user.client]) {
      const { error } = await client.auth.admin.inviteUserByEmail(email);
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('not_admin');
    }
    expect(await outboxFor(localbase, email)).toEqual([]);
  });
});

describe('verify with a phone type', () => {
  it("answers GoTrue's refusals: an invalid number 400, a valid one 403 otp_expired (no phone has a code)", async () => {
    const invalid = await anon().auth.verifyOtp({ phone: '12345-invalid', token: '123456', type: 'sms' });
    expect(invalid.error?.status).toBe(400);
    expect(invalid.error?.code).toBe('validation_failed');
    expect(invalid.error?.message).toBe('Invalid phone number format (E.164 required)');
    for (const type of ['sms', 'phone_change'] as const) {
      const { data, error } = await anon().auth.verifyOtp({ phone: '+15551234567', token: '123456', type });
      expect(error?.status).toBe(403);
      expect(error?.code).toBe('otp_expired');
      expect(error?.message).toBe('Token has expired or is invalid');
      expect(data.session).toBeNull();
    }
    const hashed = await anon().auth.verifyOtp({ token_hash: 'a'.repeat(64), type: 'sms' } as never);
    expect(hashed.error?.code).toBe('otp_expired');
  });
});

describe('outbox', () => {
  it('is read with the management token only, newest first', async () => {
    expect((await readOutbox(localbase, 'not-the-token')).status).toBe(401);
    expect((await readOutbox(localbase, localbase.serviceRoleKey)).status).toBe(401);
    const response = await readOutbox(localbase);
    const body = (await response.json()) as { smtp: boolean; messages: { id: string }[] };
    expect(body.smtp).toBe(false);
    const ids = body.messages.map((message) => Number(message.id));
    expect(ids.length).toBeGreaterThan(1);
    expect(ids, JSON.stringify(ids)).toEqual([...ids].sort((a, b) => b - a));
  });
});

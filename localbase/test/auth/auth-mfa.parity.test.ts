// TOTP multi-factor authentication through supabase-js's auth.mfa: enroll, challenge, verify (a
// new aal2 session whose amr has totp, kept by the refresh grant), listFactors,
// getAuthenticatorAssuranceLevel, challengeAndVerify and unenroll, with GoTrue's refusals: a wrong
// code, an expired or spent challenge, a replayed code, an aal1 session of a user with a factor
// (enrolling, unenrolling, changing the password), another user's factor, other factor types.
import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, managementRows, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(() => startLocalbaseStack({ auth: { siteUrl: 'http://studyhall.test:5173' } }));

/** The code of the secret `steps` 30-second steps from now (0: the current code). */
function code(secret: string, steps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
}

function claimsOf(accessToken: string | undefined) {
  return decodeJwt(accessToken as string) as { aal: string; amr: { method: string }[]; session_id: string };
}

const sql = <T = unknown>(query: string): Promise<T[]> => managementRows<T>(localbase, query);

/** A signed-up user with a verified TOTP factor (the code of the current step spent). */
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

describe('enroll', () => {
  it("answers GoTrue's shape: an SVG QR code, a base32 secret and an otpauth URI for the site's host", async () => {
    const user = await signedUpClient(localbase, 'mfa-enroll');
    const { data, error } = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'laptop' });
    expect(error).toBeNull();
    expect(data).toMatchObject({ type: 'totp', friendly_name: 'laptop' });
    expect(data?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data?.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(data?.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg/);
    const uri = new URL(data?.totp.uri as string);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('issuer')).toBe('studyhall.test:5173');
    expect(uri.searchParams.get('secret')).toBe(data?.totp.secret);
    expect(decodeURIComponent(uri.pathname)).toContain(user.email);

    // Unverified: listed among all factors, not among the usable ones; the level stays aal1.
    const factors = await user.client.auth.mfa.listFactors();
    expect(factors.data?.all.map((factor) => [factor.id, factor.status, factor.factor_type])).toEqual([
      [data?.id, 'unverified', 'totp'],
    ]);
    expect(factors.data?.totp).toEqual([]);
    const level = await user.client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  it('refuses other factor types, an unknown one, and a second factor of the same name', async () => {
    const user = await signedUpClient(localbase, 'mfa-enroll-refused');
    const phone = await user.client.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
    expect(phone.error?.status).toBe(422);
    expect(phone.error?.code).toBe('mfa_phone_enroll_not_enabled');
    const webauthn = await user.client.auth.mfa.enroll({ factorType: 'webauthn' } as never);
    expect(webauthn.error?.code).toBe('mfa_webauthn_enroll_not_enabled');
    const unknown = await user.client.auth.mfa.enroll({ factorType: 'sms' } as never);
    expect(unknown.error?.status).toBe(400);
    expect(unknown.error?.code).toBe('validation_failed');
    expect((await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'twice' })).error).toBeNull();
    const twice = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'twice' });
    expect(twice.error?.status).toBe(422);
    expect(twice.error?.code).toBe('mfa_factor_name_conflict');
    expect((await user.client.auth.mfa.listFactors()).data?.all).toHaveLength(1);
  });

  it('keeps the secret where only the database owner reads it, never in the user', async () => {
    const user = await signedUpClient(localbase, 'mfa-secret');
    const { data } = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const secret = data?.totp.secret as string;
    expect(JSON.stringify((await user.client.auth.getUser()).data.user)).not.toContain(secret);
    const grants = await sql<{ role: string; readable: boolean }>(
      `select r as role, has_table_privilege(r, '_localbase.mfa_factors', 'select') as readable
       from unnest(array['anon', 'authenticated', 'service_role']) r`,
    );
    expect(grants.every((grant) => !grant.readable)).toBe(true);
    const rest = await user.client
      .schema('_localbase' as never)
      .from('mfa_factors')
      .select('secret');
    expect(rest.data).toBeNull();
    expect(rest.error).not.toBeNull();
  });
});

describe('challenge and verify', () => {
  it('answers a new aal2 session with totp in its amr; the factor is verified; refresh keeps aal2', async () => {
    const user = await signedUpClient(localbase, 'mfa-verify');
    const before = claimsOf((await user.client.auth.getSession()).data.session?.access_token);
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id as string;
    const challenge = await user.client.auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    expect(challenge.data).toMatchObject({ type: 'totp' });
    expect(challenge.data?.expires_at).toBeGreaterThan(Date.now() / 1000 + 250);
    expect(challenge.data?.expires_at).toBeLessThanOrEqual(Date.now() / 1000 + 301);

    const verified = await user.client.auth.mfa.verify({
      factorId,
      challengeId: challenge.data?.id as string,
      code: code(enrolled.data?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    const claims = claimsOf(verified.data?.access_token);
    expect(claims.aal).toBe('aal2');
    expect(claims.amr.map((entry) => entry.method)).toEqual(expect.arrayContaining(['totp', 'password']));
    expect(claims.session_id).toBe(before.session_id);
    expect(verified.data?.refresh_token).toBeTruthy();

    const level = await user.client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const factors = await user.client.auth.mfa.listFactors();
    expect(factors.data?.totp.map((factor) => [factor.id, factor.status])).toEqual([[factorId, 'verified']]);

    const refreshed = await user.client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const after = claimsOf(refreshed.data.session?.access_token);
    expect(after.aal).toBe('aal2');
    expect(after.amr.map((entry) => entry.method)).toEqual(expect.arrayContaining(['totp', 'password']));
    // The Data API sees the level in the token (RLS policies read auth.jwt()->>'aal').
    const { error } = await user.client.from('users').select('id');
    expect(error).toBeNull();
  });

  it('refuses a wrong code (422 mfa_verification_failed) and leaves the session at aal1', async () => {
    const user = await signedUpClient(localbase, 'mfa-wrong');
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const secret = enrolled.data?.totp.secret as string;
    const factorId = enrolled.data?.id as string;
    for (const wrong of [code(secret, 10), code(secret, -10), '12345', 'abcdef', '1234567']) {
      const { error } = await user.client.auth.mfa.challengeAndVerify({ factorId, code: wrong });
      expect(error?.status).toBe(422);
      expect(error?.code).toBe('mfa_verification_failed');
      expect(error?.message).toBe('Invalid TOTP code entered');
    }
    const empty = await user.client.auth.mfa.challengeAndVerify({ factorId, code: '' });
    expect(empty.error?.status).toBe(400);
    expect(empty.error?.code).toBe('validation_failed');
    expect(claimsOf((await user.client.auth.getSession()).data.session?.access_token).aal).toBe('aal1');
    expect((await user.client.auth.mfa.listFactors()).data?.totp).toEqual([]);
  });

  it('refuses a replayed code, and a challenge verified once', async () => {
    const user = await userWithFactor('mfa-replay');
    const client = await signIn(user);
    const replayed = await client.auth.mfa.challengeAndVerify({ factorId: user.factorId, code: code(user.secret) });
    expect(replayed.error?.status).toBe(422);
    expect(replayed.error?.code).toBe('mfa_verification_failed');
    expect(claimsOf((await client.auth.getSession()).data.session?.access_token).aal).toBe('aal1');

    // The next step's code is new: accepted once; its challenge cannot be verified again.
    const challenge = await client.auth.mfa.challenge({ factorId: user.factorId });
    const challengeId = challenge.data?.id as string;
    const next = code(user.secret, 1);
    expect((await client.auth.mfa.verify({ factorId: user.factorId, challengeId, code: next })).error).toBeNull();
    const spent = await client.auth.mfa.verify({ factorId: user.factorId, challengeId, code: next });
    expect(spent.error?.status).toBe(422);
    expect(spent.error?.code).toBe('mfa_ip_address_mismatch');
  });

  it('lets only one of two verifications racing with the same code pass', async () => {
    const user = await signedUpClient(localbase, 'mfa-race');
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id as string;
    const token = (await user.client.auth.getSession()).data.session?.access_token as string;
    const [first, second] = await Promise.all([
      user.client.auth.mfa.challenge({ factorId }),
      user.client.auth.mfa.challenge({ factorId }),
    ]);
    const shared = code(enrolled.data?.totp.secret as string);
    const verify = (challengeId: string) =>
      fetch(`${localbase.url}/auth/v1/factors/${factorId}/verify`, {
        method: 'POST',
        headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ challenge_id: challengeId, code: shared }),
      });
    const answers = await Promise.all([verify(first.data?.id as string), verify(second.data?.id as string)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
  });

  it('refuses an expired challenge (422 mfa_challenge_expired) and forgets it', async () => {
    const user = await signedUpClient(localbase, 'mfa-expired');
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled.data?.id as string;
    const challenge = await user.client.auth.mfa.challenge({ factorId });
    const challengeId = challenge.data?.id as string;
    await sql(
      `update _localbase.mfa_challenges set created_at = now() - interval '301 seconds' where id = '${challengeId}'`,
    );
    const verify = () =>
      user.client.auth.mfa.verify({ factorId, challengeId, code: code(enrolled.data?.totp.secret as string) });
    const expired = await verify();
    expect(expired.error?.status).toBe(422);
    expect(expired.error?.code).toBe('mfa_challenge_expired');
    expect(expired.error?.message).toContain(challengeId);
    const again = await verify();
    expect(again.error?.code).toBe('mfa_factor_not_found');
  });

  it("refuses another user's factor (404 mfa_factor_not_found) and a factor id that is not a UUID", async () => {
    const owner = await userWithFactor('mfa-owner');
    const other = await signedUpClient(localbase, 'mfa-other');
    for (const attempt of [
      other.client.auth.mfa.challenge({ factorId: owner.factorId }),
      other.client.auth.mfa.unenroll({ factorId: owner.factorId }),
    ]) {
      const { error } = await attempt;
      expect(error?.status).toBe(404);
      expect(error?.code).toBe('mfa_factor_not_found');
    }
    const notUuid = await other.client.auth.mfa.challenge({ factorId: 'nope' });
    expect(notUuid.error?.status).toBe(404);
    expect(notUuid.error?.code).toBe('validation_failed');
    const factors = await sql<{ n: number }>(
      `select count(*)::int as n from _localbase.mfa_factors where id = '${owner.factorId}'`,
    );
    expect(factors[0]?.n).toBe(1);
  });

  it("ends the user's other aal1 sessions once a factor is verified", async () => {
    const user = await signedUpClient(localbase, 'mfa-others');
    const other = await signIn(user);
    const otherToken = (await other.auth.getSession()).data.session?.access_token as string;
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const verified = await user.client.auth.mfa.challengeAndVerify({
      factorId: enrolled.data?.id as string,
      code: code(enrolled.data?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    const answer = await fetch(`${localbase.url}/auth/v1/user`, {
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${otherToken}` },
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error_code: string }).error_code).toBe('session_not_found');
    expect((await user.client.auth.getUser()).error).toBeNull();
  });
});

describe('a user with a verified factor, signed in with her password', () => {
  it('is at aal1 with aal2 next, and may not enroll, unenroll or change her password until she verifies', async () => {
    const user = await userWithFactor('mfa-aal1');
    const client = await signIn(user);
    const level = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });

    const enroll = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'second' });
    expect(enroll.error?.status).toBe(403);
    expect(enroll.error?.code).toBe('insufficient_aal');
    const unenroll = await client.auth.mfa.unenroll({ factorId: user.factorId });
    expect(unenroll.error?.status).toBe(422);
    expect(unenroll.error?.code).toBe('insufficient_aal');
    const password = await client.auth.updateUser({
      password: 'hollow pine lighthouse',
      current_password: user.password,
    } as never);
    expect(password.error?.status).toBe(401);
    expect(password.error?.code).toBe('insufficient_aal');
    expect((await client.auth.mfa.listFactors()).data?.totp).toHaveLength(1);
  });

  it('unenrolls at aal2: the factor goes and her session is back at aal1', async () => {
    const user = await userWithFactor('mfa-unenroll');
    const client = await signIn(user);
    const verified = await client.auth.mfa.challengeAndVerify({ factorId: user.factorId, code: code(user.secret, 1) });
    expect(verified.error).toBeNull();
    const unenrolled = await client.auth.mfa.unenroll({ factorId: user.factorId });
    expect(unenrolled.error).toBeNull();
    expect(unenrolled.data).toEqual({ id: user.factorId });
    expect((await client.auth.mfa.listFactors()).data?.all).toEqual([]);
    const refreshed = await client.auth.refreshSession();
    const claims = claimsOf(refreshed.data.session?.access_token);
    expect(claims.aal).toBe('aal1');
    expect(claims.amr.map((entry) => entry.method)).not.toContain('totp');
  });

  it('unenrolls an unverified factor at aal1', async () => {
    const user = await signedUpClient(localbase, 'mfa-unverified-unenroll');
    const enrolled = await user.client.auth.mfa.enroll({ factorType: 'totp' });
    const { error } = await user.client.auth.mfa.unenroll({ factorId: enrolled.data?.id as string });
    expect(error).toBeNull();
    expect((await user.client.auth.mfa.listFactors()).data?.all).toEqual([]);
  });
});

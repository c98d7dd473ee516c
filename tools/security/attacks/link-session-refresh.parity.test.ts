// attack: keep a mailed link's password exemption forever by refreshing. A session that a recovery,
// magic or invite link started may set a new password without the current one, since following
// the link proved the mailbox. The exemption was read from the access token's `amr`, which every
// refresh copies: whoever held such a session's refresh token, days later, sent
// `PUT /auth/v1/user {password}` with neither `current_password` nor a reauthentication code, got
// 200, and with the new password ended the owner's other sessions. Now the exemption lasts the
// hour after the link was followed, as recorded with the session, refreshed or not; after it the
// session needs the current password like any other.
import { describe, expect, it } from 'vitest';
import { nextMail, outboxFor, tokensOf } from '#localbase/test/outbox.ts';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);

interface Tokens {
  access_token: string;
  refresh_token: string;
}

type LinkKind = 'recovery' | 'magiclink' | 'invite';

/** The `amr` method GoTrue records for a session each kind of link starts. */
const AMR_OF: Record<LinkKind, string> = { recovery: 'recovery', magiclink: 'otp', invite: 'invite' };

const passwordOf = (name: string) => `${name}-password-1`;

function claimsOf(accessToken: string): { session_id: string; amr: { method: string; timestamp: number }[] } {
  return JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

function asStudent(email: string, tokens: Tokens): Student {
  return { id: '', email, token: tokens.access_token };
}

async function refresh(tokens: Tokens): Promise<Tokens> {
  const response = await stack.backend(null, 'POST', '/auth/v1/token?grant_type=refresh_token', {
    refresh_token: tokens.refresh_token,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function signIn(email: string, password: string): Promise<Tokens> {
  const response = await stack.backend(null, 'POST', '/auth/v1/token?grant_type=password', { email, password });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Follows the newest link of `type` mailed to `email` (read from the outbox: that mailbox). */
async function followMailedLink(email: string, type: LinkKind, seen: number): Promise<Tokens> {
  const { secret } = tokensOf(await nextMail(stack.localbase, email, seen));
  const verified = await stack.backend(null, 'POST', '/auth/v1/verify', { type, token_hash: secret });
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json();
}

/** A student with a password, and a fresh session that a link of `kind` started for her. */
async function linkSession(name: string, kind: LinkKind): Promise<{ email: string; tokens: Tokens }> {
  const email = `${name}@example.com`;
  if (kind === 'invite') {
    // The school invites her; she follows the invite link and chooses her password with it.
    const invited = await fetch(`${stack.localbase.url}/auth/v1/invite`, {
      method: 'POST',
      headers: {
        apikey: stack.localbase.serviceRoleKey,
        authorization: `Bearer ${stack.localbase.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email }),
    });
    expect(invited.status).toBe(200);
    const tokens = await followMailedLink(email, 'invite', 0);
    const chosen = await stack.backend(asStudent(email, tokens), 'PUT', '/auth/v1/user', {
      password: passwordOf(name),
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    return { email, tokens };
  }
  await stack.signUp(name);
  const seen = (await outboxFor(stack.localbase, email)).length;
  const path = kind === 'recovery' ? '/auth/v1/recover' : '/auth/v1/otp';
  expect((await stack.backend(null, 'POST', path, { email })).statusCode).toBe(200);
  return { email, tokens: await followMailedLink(email, kind, seen) };
}

/** Moves the moment the session's link was followed `minutes` into the past. */
async function followedMinutesAgo(tokens: Tokens, minutes: number): Promise<void> {
  const sessionId = claimsOf(tokens.access_token).session_id;
  await stack.owner(
    `update _localbase.session_amr set authenticated_at = authenticated_at - make_interval(mins => $2)
     where session_id = $1`,
    [sessionId, minutes],
  );
  await stack.owner(`update auth.sessions set created_at = created_at - make_interval(mins => $2) where id = $1`, [
    sessionId,
    minutes,
  ]);
}

function setPassword(email: string, tokens: Tokens, body: Record<string, string>) {
  return stack.backend(asStudent(email, tokens), 'PUT', '/auth/v1/user', body);
}

describe.each(['recovery', 'magiclink', 'invite'] as const)('attack: a %s session, refreshed', (kind) => {
  it('is exempt within the hour after the link was followed, refreshed or not', async () => {
    const { email, tokens } = await linkSession(`${kind}-within-${process.pid}`, kind);
    const refreshed = await refresh(tokens);
    // The refreshed token still says how the session began, as GoTrue's does.
    expect(claimsOf(refreshed.access_token).amr.map((entry) => entry.method)).toContain(AMR_OF[kind]);
    await followedMinutesAgo(tokens, 59);
    const changed = await setPassword(email, refreshed, { password: 'amber meadow crossing' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await signIn(email, 'amber meadow crossing')).access_token).toBeTruthy();
  });

  it('needs the current password once that hour is over, and changes nothing without it', async () => {
    const name = `${kind}-after-${process.pid}`;
    const { email, tokens } = await linkSession(name, kind);
    const owner = await signIn(email, passwordOf(name));
    await followedMinutesAgo(tokens, 61);
    const refreshed = await refresh(tokens);
    expect(claimsOf(refreshed.access_token).amr.map((entry) => entry.method)).toContain(AMR_OF[kind]);

    // Neither the refreshed token nor the one issued by the link (still within its own hour) is exempt now.
    for (const held of [refreshed, tokens]) {
      const refused = await setPassword(email, held, { password: 'stolen session password' });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().error_code).toBe('reauthentication_needed');
    }
    // Nothing changed: the owner's password still signs in and her other session still works.
    expect((await signIn(email, passwordOf(name))).access_token).toBeTruthy();
    const ownerStillIn = await stack.backend(asStudent(email, owner), 'GET', '/auth/v1/user');
    expect(ownerStillIn.statusCode, ownerStillIn.body).toBe(200);

    // The owner herself, with her current password, still may.
    const changed = await setPassword(email, refreshed, {
      password: 'amber meadow crossing',
      current_password: passwordOf(name),
    });
    expect(changed.statusCode, changed.body).toBe(200);
  });
});

describe('a password session', () => {
  it('needs the current password, fresh or refreshed (400 reauthentication_needed)', async () => {
    const student = await stack.signUp(`password-session-${process.pid}`);
    const tokens = await signIn(student.email, passwordOf(`password-session-${process.pid}`));
    for (const held of [tokens, await refresh(tokens)]) {
      const refused = await setPassword(student.email, held, { password: 'stolen session password' });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().error_code).toBe('reauthentication_needed');
    }
  });
});

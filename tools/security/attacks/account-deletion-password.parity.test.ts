// attack: delete a student's account with her access token alone. The app asked for her handle,
// which anyone who sees her profile knows, and delete_my_account checked only that, so whoever held
// one of her access tokens (a browser left signed in, a token read from a shared computer, a
// session a recovery link started) deleted her account through /__backend without knowing her
// password. Now the database refuses unless the token's session entered the password within the
// last five minutes (GoTrue's `amr` claim, signed into every access token, kept on refresh); the
// password itself is checked by a password grant, where the rate limits and the account's budget
// of wrong passwords apply. The app asks for it again right before deleting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextMail, outboxFor, tokensOf } from '#localbase/test/outbox.ts';
import { startAttackStack, type AttackStack, type Student } from './attack-stack.ts';

let stack: AttackStack;

beforeAll(async () => {
  stack = await startAttackStack();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

interface Tokens {
  access_token: string;
  refresh_token: string;
}

const passwordOf = (name: string) => `${name}-password-1`;
const sessionIdOf = (accessToken: string): string =>
  JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')).session_id;

async function grant(path: string, body: Record<string, string>): Promise<Tokens> {
  const response = await stack.backend(null, 'POST', path, body);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

const signIn = (email: string, password: string) => grant('/auth/v1/token?grant_type=password', { email, password });
const refresh = (tokens: Tokens) =>
  grant('/auth/v1/token?grant_type=refresh_token', { refresh_token: tokens.refresh_token });

/** Moves the moment each of the session's sign-in methods was proved `minutes` into the past. */
async function provedMinutesAgo(tokens: Tokens, minutes: number): Promise<void> {
  await stack.owner(
    `update _localbase.session_amr set authenticated_at = authenticated_at - make_interval(mins => $2)
     where session_id = $1`,
    [sessionIdOf(tokens.access_token), minutes],
  );
}

/** delete_my_account with the word it asks for (her handle), as the attacker would read it off her profile. */
async function deleteWith(student: Student, tokens: Tokens) {
  const [profile] = await stack.owner<{ handle: string | null }>(
    `select handle from public.user_profiles where user_id = $1`,
    [student.id],
  );
  return stack.backend({ ...student, token: tokens.access_token }, 'POST', '/rest/v1/rpc/delete_my_account', {
    p_confirm: profile?.handle ?? 'delete',
  });
}

async function accountExists(student: Student): Promise<boolean> {
  return (await stack.owner(`select 1 from auth.users where id = $1`, [student.id])).length === 1;
}

/** PostgREST's answer to a raise: 400 with the SQLSTATE and the stable code. */
function expectPasswordRequired(response: Awaited<ReturnType<typeof deleteWith>>): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json()).toMatchObject({ code: 'P0103', message: 'password_required' });
}

describe('attack: deleting an account without its password', () => {
  it('a session that entered the password an hour ago, refreshed since, cannot delete the account', async () => {
    const name = `stale-${process.pid}`;
    const student = await stack.signUp(name);
    const tokens = await signIn(student.email, passwordOf(name));
    await provedMinutesAgo(tokens, 60);
    const refreshed = await refresh(tokens);
    expectPasswordRequired(await deleteWith(student, refreshed));
    expect(await accountExists(student)).toBe(true);
  });

  it('a session from before localbase recorded how sessions signed in counts from when it began', async () => {
    const name = `older-${process.pid}`;
    const student = await stack.signUp(name);
    const tokens = await signIn(student.email, passwordOf(name));
    const sessionId = sessionIdOf(tokens.access_token);
    await stack.owner(`delete from _localbase.session_amr where session_id = $1`, [sessionId]);
    await stack.owner(`update auth.sessions set created_at = created_at - interval '1 hour' where id = $1`, [
      sessionId,
    ]);
    expectPasswordRequired(await deleteWith(student, await refresh(tokens)));
    expect(await accountExists(student)).toBe(true);
  });

  it('a session a recovery link started cannot delete the account', async () => {
    const name = `recovered-${process.pid}`;
    const student = await stack.signUp(name);
    const seen = (await outboxFor(stack.localbase, student.email)).length;
    expect((await stack.backend(null, 'POST', '/auth/v1/recover', { email: student.email })).statusCode).toBe(200);
    const { secret } = tokensOf(await nextMail(stack.localbase, student.email, seen));
    const linked = await grant('/auth/v1/verify', { type: 'recovery', token_hash: secret });
    expectPasswordRequired(await deleteWith(student, linked));
    expect(await accountExists(student)).toBe(true);
  });

  it('the password entered again just now deletes it', async () => {
    const name = `leaving-${process.pid}`;
    const student = await stack.signUp(name);
    const tokens = await signIn(student.email, passwordOf(name));
    await provedMinutesAgo(tokens, 60);
    expectPasswordRequired(await deleteWith(student, await refresh(tokens)));
    const again = await signIn(student.email, passwordOf(name));
    const deleted = await deleteWith(student, again);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await accountExists(student)).toBe(false);
  });

  it('a wrong password gets no fresh session to delete with', async () => {
    const name = `guessed-${process.pid}`;
    const student = await stack.signUp(name);
    const wrong = await stack.backend(null, 'POST', '/auth/v1/token?grant_type=password', {
      email: student.email,
      password: 'not-her-password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error_code: 'invalid_credentials' });
    expect(await accountExists(student)).toBe(true);
  });
});

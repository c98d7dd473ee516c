// attack: take an account over with its access token alone. PUT /auth/v1/user {email} mailed a
// confirmation to the new address only, so whoever held a student's token (a shared computer, a
// leaked log) could name her own mailbox, follow the link mailed there, and then ask for a
// recovery link to that address: the account, and everything in it, was hers. Now both addresses
// confirm (GoTrue's secure e-mail change, the default of supabase/config.toml's
// `double_confirm_changes`): the current address is mailed a link too, and the address changes
// only once both are followed. Without the old mailbox the change never completes.
import { describe, expect, it } from 'vitest';
import { nextMail, tokensOf } from '#localbase/test/outbox.ts';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);

const ONE_CONFIRMED = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';
/** Five wrong codes in a row end a token (docs/localbase.md, "One-time tokens"). */
const WRONG_CODES_THAT_END_A_TOKEN = 5;

async function addressOf(student: Student): Promise<string> {
  const [row] = await stack.owner<{ email: string }>('select email from auth.users where id = $1', [student.id]);
  return row?.email ?? '';
}

/** The attacker, with the student's access token, moves the account to her own mailbox. */
async function requestMove(victim: Student, attackerMailbox: string): Promise<void> {
  const requested = await stack.backend(victim, 'PUT', '/auth/v1/user', { email: attackerMailbox });
  expect(requested.statusCode, requested.body).toBe(200);
  expect(requested.json()).toMatchObject({ email: victim.email, new_email: attackerMailbox });
}

describe("attack: a stolen access token moves the account to the attacker's mailbox", () => {
  it('gets no further than one confirmation: the address stays and no session comes back', async () => {
    const victim = await stack.signUp(`moved-${process.pid}`);
    const attackerMailbox = `taker-${process.pid}@evil.example`;
    await requestMove(victim, attackerMailbox);

    // The attacker reads her own mailbox and follows the link: back to the app with a message only.
    const { secret, link } = tokensOf(await nextMail(stack.localbase, attackerMailbox));
    const followed = await stack.backend(null, 'GET', `${link.pathname}${link.search}`);
    expect(followed.statusCode).toBe(303);
    const landing = new URL(String(followed.headers.location));
    expect(Object.fromEntries(new URLSearchParams(landing.hash.slice(1)))).toEqual({ message: ONE_CONFIRMED });
    expect(await addressOf(victim)).toBe(victim.email);

    // The link worked once; as a POST it is spent, and no session comes back either way.
    const again = await stack.backend(null, 'POST', '/auth/v1/verify', { type: 'email_change', token_hash: secret });
    expect(again.statusCode).toBe(403);
    expect(again.json().error_code).toBe('otp_expired');
    expect(await addressOf(victim)).toBe(victim.email);
    // No account has her address, so a recovery link to it would open nothing.
    expect(await stack.owner('select id from auth.users where email = $1', [attackerMailbox])).toEqual([]);

    // The student's own mailbox was told, in words that say what the link would do.
    const warning = await nextMail(stack.localbase, victim.email);
    expect(warning.subject).toBe('Confirm Email Change');
    expect(warning.text).toContain(
      `Confirm the change of your e-mail address from ${victim.email} to ${attackerMailbox}`,
    );
    expect(warning.text).toContain('If you did not ask for this, do not follow the link');

    // She still signs in with her address and password.
    const signIn = await stack.backend(null, 'POST', '/auth/v1/token?grant_type=password', {
      email: victim.email,
      password: `moved-${process.pid}-password-1`,
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
  });

  it('cannot finish with the code alone, nor by spending the code mailed to the student', async () => {
    const victim = await stack.signUp(`burned-${process.pid}`);
    const attackerMailbox = `burner-${process.pid}@evil.example`;
    await requestMove(victim, attackerMailbox);
    const { otp, secret } = tokensOf(await nextMail(stack.localbase, attackerMailbox));

    // Wrong guesses end the code mailed to the student's address ...
    for (let attempt = 0; attempt < WRONG_CODES_THAT_END_A_TOKEN; attempt += 1) {
      const guess = await stack.backend(null, 'POST', '/auth/v1/verify', {
        type: 'email_change',
        email: victim.email,
        token: String(100000 + attempt),
      });
      expect(guess.statusCode).toBe(403);
    }
    // ... which is no confirmation: the attacker's code (with her address) and then her link
    // each count once, as the same confirmation of the new address.
    const byCode = await stack.backend(null, 'POST', '/auth/v1/verify', {
      type: 'email_change',
      email: attackerMailbox,
      token: otp,
    });
    expect(byCode.statusCode, byCode.body).toBe(200);
    expect(byCode.json().msg).toBe(ONE_CONFIRMED);
    const byLink = await stack.backend(null, 'POST', '/auth/v1/verify', { type: 'email_change', token_hash: secret });
    expect(byLink.statusCode).toBe(403);
    expect(await addressOf(victim)).toBe(victim.email);

    // Asking again starts over: one more confirmation of the new address is still only one.
    await requestMove(victim, attackerMailbox);
    const fresh = tokensOf(await nextMail(stack.localbase, attackerMailbox, 1));
    const followed = await stack.backend(null, 'POST', '/auth/v1/verify', {
      type: 'email_change',
      token_hash: fresh.secret,
    });
    expect(followed.json().msg).toBe(ONE_CONFIRMED);
    expect(await addressOf(victim)).toBe(victim.email);
  });
});

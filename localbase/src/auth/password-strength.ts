// How localbase decides a password is worth the name: GoTrue's password rules, applied by the one
// password rule both ends share (contracts/password-rule.ts, which the web app checks as the
// student types): shorter than 8 characters is refused with the reason `length`; a known or easily
// guessed password (a common or leaked one, a small variation of one, a keyboard walk, a date, a
// repetition) with `pwned`, GoTrue's reason for a known password.
import { isTooShort, loadPasswordRule, PASSWORD_MIN_CHARS, type WeakPasswordReason } from '#contracts/password-rule.ts';
import { AuthError } from './errors.ts';

export class WeakPasswordError extends AuthError {
  constructor(
    message: string,
    readonly reasons: WeakPasswordReason[],
  ) {
    super(422, 'weak_password', message, { weak_password: { reasons } });
  }
}

/**
 * Throws WeakPasswordError for a password GoTrue-compatible clients should be told to change.
 * `userInputs` (the e-mail address) count as known words: "ada@example.com-ada" is weak. The list
 * is loaded on the first password checked, not at boot (a server that never sees a sign-up never
 * pays for it).
 */
export async function checkPasswordStrength(password: string, userInputs: string[] = []): Promise<void> {
  // As GoTrue: the length is reported alone, before the password is looked up anywhere.
  if (isTooShort(password)) {
    throw new WeakPasswordError(`Password should be at least ${PASSWORD_MIN_CHARS} characters.`, ['length']);
  }
  const weakness = (await loadPasswordRule()).weakness(password, userInputs);
  if (weakness) {
    throw new WeakPasswordError('Password is known to be weak and easy to guess, please choose a different one.', [
      weakness,
    ]);
  }
}

// How localbase decides a password is worth the name (GoTrue's password rules, with zxcvbn-ts in
// place of the Have I Been Pwned lookup GoTrue makes, so that the check works offline):
// shorter than 8 characters is refused with the reason `length`; a password zxcvbn scores below 2
// (one in its list of common and leaked passwords, or a small variation of one, a keyboard walk, a
// date, a repetition) is refused with `pwned`, GoTrue's reason for a known password.
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { AuthError } from './errors.ts';

export const PASSWORD_MIN_CHARS = 8;
/** zxcvbn's 0..4 scale: 2 stands for "somewhat guessable" (under 10^8 guesses is 0 or 1). */
export const PASSWORD_MIN_SCORE = 2;

export type WeakPasswordReason = 'length' | 'characters' | 'pwned';

export class WeakPasswordError extends AuthError {
  constructor(
    message: string,
    readonly reasons: WeakPasswordReason[],
  ) {
    super(422, 'weak_password', message, { weak_password: { reasons } });
  }
}

let checker: Promise<ZxcvbnFactory> | undefined;

/**
 * The dictionaries are a few megabytes of JavaScript: loaded on the first password checked, once
 * per process, not at boot (a server that never sees a sign-up never pays for them).
 */
function loadChecker(): Promise<ZxcvbnFactory> {
  checker ??= (async () => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  })();
  checker.catch(() => {
    checker = undefined;
  });
  return checker;
}

/**
 * Throws WeakPasswordError for a password GoTrue-compatible clients should be told to change.
 * `userInputs` (the e-mail address) count as known words: "ada@example.com-ada" is weak.
 */
export async function checkPasswordStrength(password: string, userInputs: string[] = []): Promise<void> {
  // As GoTrue: the length is reported alone, before the password is looked up anywhere.
  if ([...password].length < PASSWORD_MIN_CHARS) {
    throw new WeakPasswordError(`Password should be at least ${PASSWORD_MIN_CHARS} characters.`, ['length']);
  }
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/).filter((part) => part.length > 2)]);
  const { score } = (await loadChecker()).check(password, inputs);
  if (score < PASSWORD_MIN_SCORE) {
    throw new WeakPasswordError('Password is known to be weak and easy to guess, please choose a different one.', [
      'pwned',
    ]);
  }
}

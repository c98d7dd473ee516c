// The one rule a new password meets, written once for both ends: localbase refuses a password with
// it (GoTrue's `weak_password` and its `reasons`), and the web app checks the same rule as the
// student types. NIST SP 800-63B, as docs/database.md's password policy says: at least 8
// characters, at most 72 bytes (bcrypt reads no further), and not a known or easily guessed
// password, judged by zxcvbn-ts with its list of common and leaked passwords (offline, in place of
// the Have I Been Pwned lookup GoTrue makes). No composition rules, no score that would refuse a
// long passphrase.
//
// The list is about 200 KB of gzip JavaScript: `loadPasswordRule` imports it on first use, so the
// server pays for it with the first password it checks and a browser only on a screen where a
// password is chosen, never with the focus page.
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_BYTES = 72;
/** zxcvbn's 0..4 scale: below 2 is "too guessable" (under 10^8 guesses), GoTrue's `pwned`. */
export const PASSWORD_MIN_SCORE = 2;

/** GoTrue's reasons: `length` (reported alone), `characters` (a hosted composition rule), `pwned`. */
export type WeakPasswordReason = 'length' | 'characters' | 'pwned';

/** Characters as a person counts them (code points), as GoTrue counts them. */
export function isTooShort(password: string): boolean {
  return [...password].length < PASSWORD_MIN_CHARS;
}

/** Bytes of UTF-8: bcrypt would silently ignore everything past the 72nd. */
export function isTooLong(password: string): boolean {
  return new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES;
}

/**
 * Words the password must not be built from: the e-mail address whole and in its parts, so that
 * "ada@example.com-ada" counts as guessable.
 */
export function knownWords(userInputs: readonly string[]): string[] {
  return userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/).filter((part) => part.length > 2)]);
}

export interface PasswordRule {
  /** Why the password is weak, or null when it may be used. Length first, as GoTrue reports it. */
  weakness(password: string, userInputs?: readonly string[]): WeakPasswordReason | null;
}

let loading: Promise<PasswordRule> | undefined;

/** The rule with its list loaded: once per process or page; a failed load is tried again next time. */
export function loadPasswordRule(): Promise<PasswordRule> {
  loading ??= (async (): Promise<PasswordRule> => {
    const [{ ZxcvbnFactory: Factory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    const checker: ZxcvbnFactory = new Factory({
      dictionary: { ...common.dictionary },
      graphs: common.adjacencyGraphs,
    });
    return {
      weakness(password, userInputs = []) {
        if (isTooShort(password)) return 'length';
        return checker.check(password, knownWords(userInputs)).score < PASSWORD_MIN_SCORE ? 'pwned' : null;
      },
    };
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

// What the password rule (contracts/password-rule.ts) and the backend's refusals say, in a student's
// words. The backend answers GoTrue's `weak_password` with `reasons`: `length` (too short, reported
// alone), `characters` (a hosted project that requires kinds of characters) and `pwned` (a known or
// easily guessed password); the app's own check of the same rule names the same reasons as she
// types, plus `too_long` (past 72 bytes, which the backend refuses as invalid input).
import type { WeakPasswordReason } from '#contracts/password-rule.ts';

export type PasswordProblem = WeakPasswordReason | 'too_long';

const SENTENCES: Record<PasswordProblem, string> = {
  length: 'Too short: use at least 8 characters.',
  characters: 'Too simple: mix lower- and upper-case letters, digits and symbols.',
  pwned:
    'Too common: this password is on the lists attackers try first. A few unrelated words, like "lamp river orbit", work well.',
  too_long: 'Too long: a password can be at most 72 bytes (72 letters, fewer with accents or emoji).',
};

export const NEW_PASSWORD_HINT =
  'At least 8 characters, not a common password. A few unrelated words are easy to remember and hard to guess.';
export const NEW_PASSWORD_PASSES = 'Long enough, and not on the lists of common passwords.';

export function passwordSentence(problem: PasswordProblem): string {
  return SENTENCES[problem];
}

export function weakPasswordSentence(reasons: readonly unknown[] | undefined): string {
  const known = (reasons ?? []).filter(
    (reason): reason is WeakPasswordReason => typeof reason === 'string' && Object.hasOwn(SENTENCES, reason),
  );
  if (known.length === 0) return 'This password is too easy to guess. Choose a longer, less common one.';
  return known.map((reason) => SENTENCES[reason]).join(' ');
}

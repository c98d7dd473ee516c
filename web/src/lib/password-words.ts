// Why the backend refused a new password, in a student's words. The backend answers GoTrue's
// `weak_password` with `reasons`: `length` (too short, reported alone), `characters` (a hosted
// project that requires kinds of characters) and `pwned` (a known or easily guessed password).

const SENTENCES: Record<string, string> = {
  length: 'Too short: use at least 8 characters.',
  characters: 'Too simple: mix lower- and upper-case letters, digits and symbols.',
  pwned:
    'Too common: this password is on the lists attackers try first. A few unrelated words, like "lamp river orbit", work well.',
};

export function weakPasswordSentence(reasons: readonly unknown[] | undefined): string {
  const known = (reasons ?? []).filter(
    (reason): reason is string => typeof reason === 'string' && Object.hasOwn(SENTENCES, reason),
  );
  if (known.length === 0) return 'This password is too easy to guess. Choose a longer, less common one.';
  return known.map((reason) => SENTENCES[reason]).join(' ');
}

/** The app's own check before asking the server: 8 to 72 bytes (bcrypt reads no further). */
export function passwordLengthProblem(password: string): string | null {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < 8) return 'Too short: use at least 8 characters.';
  if (bytes > 72) return 'The password can be at most 72 bytes long.';
  return null;
}

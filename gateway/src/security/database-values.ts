// Values the database would refuse, refused first here with a 400 that says why (zod), so the
// backend never sees them: PostgreSQL text and jsonb cannot hold U+0000 (22P05 / 22021), JSON text
// cannot carry an unpaired UTF-16 surrogate into jsonb, and every column has its length checks
// (an e-mail is at most 254 characters by RFC 5321; the auth schema stores at most 255).
import { z } from 'zod';

export const MAX_EMAIL_LENGTH = 254;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

/** True for text PostgreSQL can store as text or inside jsonb. */
export function isDatabaseSafeText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** A string column: database-safe and at most `maxLength` characters. */
export function databaseText(maxLength: number) {
  return z.string().max(maxLength).refine(isDatabaseSafeText, { message: UNSAFE_TEXT_MESSAGE });
}

/** The path (`a.b.3`) of the first key or string in a JSON value that the database would refuse. */
export function firstUnsafeJsonPath(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop() as { value: unknown; path: string };
    if (typeof current === 'string') {
      if (!isDatabaseSafeText(current)) return path || '(value)';
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, path: path ? `${path}.${index}` : String(index) }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const itemPath = path ? `${path}.${key}` : key;
        if (!isDatabaseSafeText(key)) return itemPath;
        pending.push({ value: item, path: itemPath });
      }
    }
  }
  return undefined;
}

/** A JSON object bound for a jsonb column. */
export const databaseJsonObject = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  const unsafe = firstUnsafeJsonPath(value);
  if (unsafe !== undefined) context.addIssue({ code: 'custom', message: `${unsafe}: ${UNSAFE_TEXT_MESSAGE}` });
});

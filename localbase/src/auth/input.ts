// What every auth route checks the same way: zod-parsed bodies and queries answering GoTrue's
// validation_failed, e-mail addresses and passwords.
import { z } from 'zod';
import { isTooLong, PASSWORD_MAX_BYTES } from '#contracts/password-rule.ts';
import { validationFailed } from './errors.ts';
import { checkPasswordStrength } from './password-strength.ts';
import { normalizeEmail } from './users.ts';

/** GoTrue's limit (auth.users.email is varchar(255)): checked before the database sees it. */
export const EMAIL_MAX_CHARS = 255;

export const metadata = z.record(z.string(), z.unknown());

const emailSchema = z.email();

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw validationFailed(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** GoTrue's validateEmail: required, at most 255 characters, then the format. */
export function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (normalized === '') throw validationFailed('An email address is required');
  if (normalized.length > EMAIL_MAX_CHARS) throw validationFailed('An email address is too long');
  if (!emailSchema.safeParse(normalized).success) {
    throw validationFailed('Unable to validate email address: invalid format');
  }
  return normalized;
}

/** The length bcrypt can take, then the strength rules of password-strength.ts. */
export async function checkPassword(password: string, email: string | null): Promise<void> {
  // bcrypt's input ends at 72 bytes, so longer would be silently cut.
  if (isTooLong(password)) {
    throw validationFailed(`Password cannot be longer than ${PASSWORD_MAX_BYTES} bytes`);
  }
  await checkPasswordStrength(password, email ? [email] : []);
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

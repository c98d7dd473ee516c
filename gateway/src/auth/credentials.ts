// What signup, login and check accept (password rule: 8 to 72 bytes; a valid e-mail of at most
// 254 characters, as RFC 5321 allows and the auth schema can store).
import { z } from 'zod';
import { MAX_EMAIL_LENGTH } from '../security/database-values.ts';

const email = z
  .string()
  .max(MAX_EMAIL_LENGTH, { message: `must be at most ${MAX_EMAIL_LENGTH} characters` })
  .pipe(z.email({ message: 'must be a valid e-mail address' }))
  .transform((value) => value.toLowerCase());

// 72 bytes, not characters: bcrypt ignores everything past the 72nd byte.
const password = z
  .string()
  .refine((value) => Buffer.byteLength(value, 'utf8') >= 8, { message: 'must be at least 8 bytes' })
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, { message: 'must be at most 72 bytes' });

export const credentialsBody = z.object({ username: email, password });
export const checkBody = z.object({ username: email });

export type Credentials = z.infer<typeof credentialsBody>;

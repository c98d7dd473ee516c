// What signup, login and check accept (DESIGN.md "password rule": 8 to 72 bytes, a valid e-mail).
import { z } from 'zod';

const email = z
  .email({ message: 'must be a valid e-mail address' })
  .max(320)
  .transform((value) => value.toLowerCase());

// 72 bytes, not characters: bcrypt ignores everything past the 72nd byte.
const password = z
  .string()
  .refine((value) => Buffer.byteLength(value, 'utf8') >= 8, { message: 'must be at least 8 bytes' })
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, { message: 'must be at most 72 bytes' });

export const credentialsBody = z.object({ username: email, password });
export const checkBody = z.object({ username: email });

export type Credentials = z.infer<typeof credentialsBody>;

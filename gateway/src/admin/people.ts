// How the console names people, in one place so every page says it alike: a console session's
// subject (`secret` is the owner, signed in with ADMIN_SECRET; `user:<id>:<e-mail>` an admin's
// account), and a student by her e-mail, handle or, without either, as "this student".
import { subjectUserId } from './admin-cookie.ts';
import { SECRET_SUBJECT } from './login/admin-login.ts';

export const OWNER_NAME = 'the owner (admin secret)';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Who a recorded subject is: the owner, an admin's e-mail, the service role, or for an account id
 * the e-mail `emails` knows (else the account's short id).
 */
export function subjectName(subject: string, emails: ReadonlyMap<string, string | null> = new Map()): string {
  if (subject === SECRET_SUBJECT) return OWNER_NAME;
  if (subject === 'service_role') return 'the service role';
  const account = /^user:[0-9a-f-]{36}:(.+)$/.exec(subject);
  if (account?.[1]) return account[1];
  if (UUID.test(subject)) return emails.get(subject.toLowerCase()) ?? `an account (${subject.slice(0, 8)})`;
  return subject;
}

/** The account id of a subject, or of a bare account id; undefined for the owner and the service role. */
export function subjectAccountId(subject: string): string | undefined {
  if (UUID.test(subject)) return subject.toLowerCase();
  return subjectUserId(subject);
}

/** A student's name for the pages: her e-mail, else her handle, else "this student". */
export function studentName(student: { email?: string | null; handle?: string | null }): string {
  return student.email ?? (student.handle ? `@${student.handle}` : 'this student');
}

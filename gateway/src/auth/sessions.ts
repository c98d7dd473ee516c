// The auth calls behind signup, login and check: GoTrue's endpoints, with the session validated.
import { z } from 'zod';
import { session as sessionSchema } from '#contracts/auth-answers.ts';
import type { BackendClient } from '../backend/backend-client.ts';
import type { Credentials } from './credentials.ts';

export type Session = z.infer<typeof sessionSchema>;

/** A wrong e-mail or password is the backend's `invalid_credentials`: 401 (backend-errors.ts). */
export async function passwordGrant(backend: BackendClient, credentials: Credentials): Promise<Session> {
  const { body } = await backend.request('/auth/v1/token?grant_type=password', {
    credential: { anon: true },
    body: { email: credentials.username, password: credentials.password },
  });
  return sessionSchema.parse(body);
}

/**
 * Creates the account. With the service key the admin API creates it already confirmed (a local
 * server has no mailbox to confirm from); without it the public signup is used, and a project that
 * requires e-mail confirmation answers without a session. A taken e-mail (409 email_taken) and a
 * weak password (400) are mapped with every other backend code, in backend-errors.ts.
 */
export async function createAccount(backend: BackendClient, credentials: Credentials): Promise<Session | null> {
  if (backend.hasServiceRole) {
    await backend.request('/auth/v1/admin/users', {
      credential: { serviceRole: true },
      body: { email: credentials.username, password: credentials.password, email_confirm: true },
    });
    return passwordGrant(backend, credentials);
  }
  const { body } = await backend.request('/auth/v1/signup', {
    credential: { anon: true },
    body: { email: credentials.username, password: credentials.password },
  });
  const session = sessionSchema.safeParse(body);
  return session.success ? session.data : null;
}

const adminUserPage = z
  .object({
    users: z.array(z.object({ email: z.string().nullish(), banned_until: z.string().nullish() }).loose()),
  })
  .loose();
type AdminUser = z.infer<typeof adminUserPage>['users'][number];

/** The account with this e-mail, read page by page from the admin API (service key); null when none. */
async function findAccount(backend: BackendClient, email: string): Promise<AdminUser | null> {
  const perPage = 1000;
  for (let page = 1; ; page++) {
    const { body } = await backend.request(`/auth/v1/admin/users?page=${page}&per_page=${perPage}`, {
      credential: { serviceRole: true },
    });
    const { users } = adminUserPage.parse(body);
    const found = users.find((user) => user.email?.toLowerCase() === email);
    if (found) return found;
    if (users.length < perPage) return null;
  }
}

/** Whether an e-mail is registered, asked of the admin API (never by trying a password). */
export async function isEmailRegistered(backend: BackendClient, email: string): Promise<boolean> {
  return (await findAccount(backend, email)) !== null;
}

/** Longer than any ban the admin console offers (30 days) by far; shorter than its "until unbanned". */
const OPEN_ENDED_BAN_MS = 10 * 365 * 24 * 3600_000;

/**
 * When a suspended account's ban ends (ISO time), or null when the server cannot tell (no service
 * key) or the ban has no end. Asked only after the backend answered `user_banned`, which it does
 * only for the right password: whoever learns the date already holds the account's password.
 */
export async function suspensionEnd(backend: BackendClient, email: string): Promise<string | null> {
  if (!backend.hasServiceRole) return null;
  const bannedUntil = (await findAccount(backend, email))?.banned_until;
  if (!bannedUntil || Number.isNaN(Date.parse(bannedUntil))) return null;
  // GoTrue has no "forever": a ban of a century (what its dashboard sends) has no end to name.
  return Date.parse(bannedUntil) - Date.now() > OPEN_ENDED_BAN_MS ? null : new Date(bannedUntil).toISOString();
}

// Who may unlock the console: the holder of ADMIN_SECRET (compared in constant time), or someone
// signed in to the backend whose access token the backend itself confirms (/auth/v1/user), whose
// account is not banned (the backend may still accept a banned account's token until it expires), and who
// has an `admin` row in user_roles, or whose e-mail is in ADMIN_EMAIL / ADMIN_EMAILS and whose
// account the owner confirmed (roles/email-confirmations.ts: an address alone proves nothing,
// since anyone can sign up with one), or that signs in with a session a link mailed to that
// address started (mailbox-proof.ts), which is then recorded as its confirmation.
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { isBannedAt } from '../backend-users.ts';
import { confirmAdminEmail, isEmailConfirmed, unconfirmedMessage } from '../roles/email-confirmations.ts';
import { mailboxProof } from './mailbox-proof.ts';

export const SECRET_SUBJECT = 'secret';

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function secretMatches(given: string, secret: string | undefined): boolean {
  if (!secret) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

const backendUser = z
  .object({ id: z.string(), email: z.string().nullish(), banned_until: z.string().nullish() })
  .loose();

export interface AllowedAccount {
  userId: string;
  email: string;
  allowedBy: 'admin_emails' | 'user_roles';
}

export async function hasAdminRow(backend: BackendClient, userId: string): Promise<boolean> {
  const rows = await backend.select(`user_roles?select=role&user_id=eq.${encodeURIComponent(userId)}&role=eq.admin`, {
    serviceRole: true,
  });
  return rows.length > 0;
}

export async function verifyBackendSession(
  backend: BackendClient,
  accessToken: string,
  allowedEmails: readonly string[],
  secretConfigured: boolean,
  /** The gateway runs the embedded localbase (where an address changes only through a mailed link). */
  embeddedBackend: boolean,
): Promise<AllowedAccount> {
  let user: z.infer<typeof backendUser>;
  try {
    user = backendUser.parse((await backend.request('/auth/v1/user', { credential: { userToken: accessToken } })).body);
  } catch (error) {
    if (error instanceof BackendError && error.status >= 500) throw error;
    throw new GatewayError(401, 'invalid_token', 'The backend did not accept this session; sign in again.');
  }
  if (isBannedAt(user.banned_until, Date.now()))
    throw new GatewayError(403, 'account_banned', 'This account is banned; it cannot unlock the admin console.');
  const email = user.email?.toLowerCase() ?? '';
  const listed = email !== '' && allowedEmails.includes(email);
  if (listed && (await isEmailConfirmed(backend, user.id, email)))
    return { userId: user.id, email, allowedBy: 'admin_emails' };
  if (listed) {
    const method = await mailboxProof(backend, accessToken, embeddedBackend);
    if (method !== undefined) {
      await confirmAdminEmail(backend, { userId: user.id, email }, allowedEmails, `mailbox:${method}`);
      return { userId: user.id, email, allowedBy: 'admin_emails' };
    }
  }
  if (await hasAdminRow(backend, user.id)) return { userId: user.id, email, allowedBy: 'user_roles' };
  if (listed)
    throw new GatewayError(403, 'admin_email_unconfirmed', unconfirmedMessage(email, secretConfigured), {
      user_id: user.id,
      email,
    });
  throw new GatewayError(
    403,
    'not_an_admin',
    `The account ${email || user.id} may not unlock the admin console: it is not in ADMIN_EMAIL or ADMIN_EMAILS and has no admin row in user_roles.`,
  );
}

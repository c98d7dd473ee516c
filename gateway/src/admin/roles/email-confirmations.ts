// ADMIN_EMAIL / ADMIN_EMAILS accounts and their confirmation. Signing up needs no mailbox here
// (the account is confirmed at once), so an address in those settings unlocks the console only for
// an account the owner has confirmed, signed in with ADMIN_SECRET, on the roles page, or that
// proved the address itself by signing in through a link mailed to it (login/mailbox-proof.ts;
// confirmed_by `mailbox:<method>`). The confirmation is a row in public.admin_email_confirmations (service role only), bound
// to the account's user id and the address it had: the database keeps it across restarts, for
// localbase and a hosted backend alike.
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import type { AccountSummary } from '../backend-users.ts';

const TABLE = 'admin_email_confirmations';

const confirmationRow = z.object({
  user_id: z.string(),
  email: z.string(),
  confirmed_by: z.string(),
  confirmed_at: z.string(),
});
export type EmailConfirmation = z.infer<typeof confirmationRow>;

/** An account whose e-mail is in ADMIN_EMAIL(S), and whether the owner confirmed it. */
export interface AdminEmailAccount {
  user_id: string;
  email: string;
  created_at: string | null;
  confirmed: boolean;
  confirmed_at: string | null;
  confirmed_by: string | null;
}

/** Whether the owner confirmed this account with this address. */
export async function isEmailConfirmed(backend: BackendClient, userId: string, email: string): Promise<boolean> {
  const rows = await backend.select(
    `${TABLE}?select=user_id&user_id=eq.${encodeURIComponent(userId)}&email=eq.${encodeURIComponent(email)}`,
    { serviceRole: true },
  );
  return rows.length > 0;
}

export async function listConfirmations(backend: BackendClient): Promise<EmailConfirmation[]> {
  return z
    .array(confirmationRow)
    .parse(await backend.select(`${TABLE}?select=user_id,email,confirmed_by,confirmed_at`, { serviceRole: true }));
}

/** Every account whose current e-mail is in ADMIN_EMAIL(S), confirmed or pending. */
export function adminEmailAccounts(
  accounts: AccountSummary[],
  confirmations: EmailConfirmation[],
  allowedEmails: readonly string[],
): AdminEmailAccount[] {
  const byUser = new Map(confirmations.map((row) => [row.user_id, row]));
  return accounts
    .filter(
      (account): account is AccountSummary & { email: string } =>
        account.email !== null && allowedEmails.includes(account.email),
    )
    .map((account) => {
      const confirmation = byUser.get(account.id);
      const confirmed = confirmation !== undefined && confirmation.email === account.email;
      return {
        user_id: account.id,
        email: account.email,
        created_at: account.created_at,
        confirmed,
        confirmed_at: confirmed ? (confirmation?.confirmed_at ?? null) : null,
        confirmed_by: confirmed ? (confirmation?.confirmed_by ?? null) : null,
      };
    });
}

/** Records the owner's confirmation of an account (replacing one for an older address). */
export async function confirmAdminEmail(
  backend: BackendClient,
  account: { userId: string; email: string | null },
  allowedEmails: readonly string[],
  confirmedBy: string,
): Promise<void> {
  if (!account.email || !allowedEmails.includes(account.email)) {
    throw new GatewayError(
      409,
      'not_in_admin_emails',
      `The account ${account.email ?? account.userId} has no e-mail in ADMIN_EMAIL or ADMIN_EMAILS; only those accounts are confirmed here (grant an admin row instead).`,
    );
  }
  await backend.request(`/rest/v1/${TABLE}?on_conflict=user_id`, {
    credential: { serviceRole: true },
    headers: { prefer: 'resolution=merge-duplicates,return=minimal' },
    body: {
      user_id: account.userId,
      email: account.email,
      confirmed_by: confirmedBy,
      confirmed_at: new Date().toISOString(),
    },
  });
}

/** What the owner must do before an ADMIN_EMAIL account can unlock the console. */
export function unconfirmedMessage(email: string, secretConfigured: boolean): string {
  const how = secretConfigured
    ? 'the owner must sign in to the admin console with ADMIN_SECRET and confirm this account on the Roles page (/__admin/roles)'
    : 'the owner must set ADMIN_SECRET, restart the server, sign in to the admin console with it and confirm this account on the Roles page (/__admin/roles)';
  return `The account ${email} is named in ADMIN_EMAIL / ADMIN_EMAILS, but its address has not been confirmed: anyone can sign up with an address. Before it can unlock the console, ${how}; or sign in to the app through a password-reset or sign-in link mailed to ${email} and unlock the console with that session.`;
}

/** The boot warning when ADMIN_EMAIL accounts can never be confirmed; undefined when they can (or there are none). */
export function adminEmailBootWarning(admin: {
  enabled: boolean;
  secret: string | undefined;
  emails: readonly string[];
}): string | undefined {
  if (!admin.enabled || admin.secret || admin.emails.length === 0) return undefined;
  return 'ADMIN_EMAIL / ADMIN_EMAILS cannot be confirmed without ADMIN_SECRET: those accounts cannot unlock the admin console (set ADMIN_SECRET, then confirm them on /__admin/roles).';
}

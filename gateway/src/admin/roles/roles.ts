// Admin rows in user_roles: who holds one (with their e-mail), granting by user id or e-mail, and
// revoking through public.admin_revoke_role, which decides by the console's admin its `backend`
// names: the owner (ADMIN_SECRET) revokes any admin row, the last one included; an admin signed in
// with her account never revokes her own, and nobody else revokes the last one (with none left, no
// account could unlock the console through user_roles).
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { findAccountByEmail, listAccounts, type AccountSummary } from '../backend-users.ts';

export const ADMIN_ROLE = 'admin';

const roleRow = z.object({
  user_id: z.string(),
  role: z.string(),
  granted_by: z.string().nullable(),
  created_at: z.string(),
});

export interface AdminRow {
  user_id: string;
  email: string | null;
  granted_by: string | null;
  created_at: string;
  /** Also in ADMIN_EMAIL / ADMIN_EMAILS (once confirmed, revoking the row leaves that way open). */
  in_admin_emails: boolean;
}

/** accounts: the backend's accounts when the caller already listed them. */
export async function listAdminRows(
  backend: BackendClient,
  allowedEmails: readonly string[],
  accounts?: AccountSummary[],
): Promise<AdminRow[]> {
  const [rows, listed] = await Promise.all([
    backend.select(`user_roles?select=user_id,role,granted_by,created_at&role=eq.${ADMIN_ROLE}&order=created_at.asc`, {
      serviceRole: true,
    }),
    accounts ?? listAccounts(backend),
  ]);
  const emails = new Map(listed.map((account) => [account.id, account.email]));
  return z
    .array(roleRow)
    .parse(rows)
    .map((row) => {
      const email = emails.get(row.user_id) ?? null;
      return {
        user_id: row.user_id,
        email,
        granted_by: row.granted_by,
        created_at: row.created_at,
        in_admin_emails: email !== null && allowedEmails.includes(email),
      };
    });
}

/** Whether this account holds the only admin row (deleting it would leave none). */
export async function holdsLastAdminRow(backend: BackendClient, userId: string): Promise<boolean> {
  const rows = z
    .array(z.object({ user_id: z.string() }))
    .parse(await backend.select(`user_roles?select=user_id&role=eq.${ADMIN_ROLE}&limit=2`, { serviceRole: true }));
  return rows.length === 1 && rows[0]?.user_id === userId;
}

export const roleTarget = z.union([
  z.object({ user_id: z.uuid(), email: z.undefined().optional() }),
  z.object({
    email: z
      .email()
      .max(254)
      .transform((value) => value.toLowerCase()),
    user_id: z.undefined().optional(),
  }),
]);
export type RoleTarget = z.infer<typeof roleTarget>;

/** The user a request names, which must exist as an account. */
export async function resolveUser(
  backend: BackendClient,
  target: RoleTarget,
): Promise<{ userId: string; email: string | null }> {
  if (target.user_id) {
    const accounts = await listAccounts(backend);
    const account = accounts.find((item) => item.id === target.user_id);
    if (!account) throw new GatewayError(404, 'user_not_found', `No account has the id ${target.user_id}.`);
    return { userId: account.id, email: account.email };
  }
  const account = await findAccountByEmail(backend, target.email ?? '');
  if (!account) throw new GatewayError(404, 'user_not_found', `No account has the e-mail ${target.email}.`);
  return { userId: account.id, email: account.email };
}

export async function grantAdmin(
  backend: BackendClient,
  userId: string,
  grantedBy: string | null,
): Promise<{ created: boolean }> {
  const { body } = await backend.request(`/rest/v1/user_roles?on_conflict=user_id,role&select=user_id`, {
    credential: { serviceRole: true },
    headers: { prefer: 'resolution=ignore-duplicates,return=representation' },
    body: { user_id: userId, role: ADMIN_ROLE, granted_by: grantedBy },
  });
  return { created: z.array(z.unknown()).parse(body).length > 0 };
}

/** Why an admin signed in with her account may not revoke her own admin row. */
export const OWN_ROW_REASON =
  'This is your own admin row: you signed in with it, so revoking it would lock you out of the console. Another admin, or the owner signed in with the admin secret, can revoke it.';

export async function revokeAdmin(backend: BackendClient, userId: string): Promise<void> {
  try {
    await backend.rpc('admin_revoke_role', { p_user_id: userId, p_role: ADMIN_ROLE }, { serviceRole: true });
  } catch (error) {
    if (error instanceof BackendError && error.message === 'own_admin_row') {
      throw new GatewayError(409, 'own_admin_row', `${OWN_ROW_REASON} Nothing was changed.`);
    }
    if (error instanceof BackendError && error.message === 'last_admin') {
      throw new GatewayError(
        409,
        'last_admin',
        'This is the last admin row: without it no account could unlock the console with a backend login. Grant admin to someone else first, or sign in with the admin secret, which may revoke it; nothing was changed.',
      );
    }
    if (error instanceof BackendError && error.message === 'role_not_found') {
      throw new GatewayError(404, 'role_not_found', 'That user has no admin row to revoke.');
    }
    throw error;
  }
}

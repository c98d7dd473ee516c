// Accounts as the backend's auth admin API knows them (service role): the whole list, paged, for
// the pages that name users by e-mail; one account by id, for the console's recheck of a session;
// creating and deleting the temporary accounts of verify's smoke test and the browser proof.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';

const authUser = z
  .object({
    id: z.string(),
    email: z.string().nullish(),
    created_at: z.string().nullish(),
    last_sign_in_at: z.string().nullish(),
    banned_until: z.string().nullish(),
    deleted_at: z.string().nullish(),
  })
  .loose();
const userPage = z.object({ users: z.array(authUser) }).loose();

export interface AccountSummary {
  id: string;
  email: string | null;
  created_at: string | null;
  last_sign_in_at: string | null;
  /** GoTrue's ban end; null or a past time when the account is not banned. */
  banned_until: string | null;
}

const PAGE_SIZE = 1000;

/**
 * Whether a ban end (`banned_until`) is still ahead at nowMs. A value that is not a date (PostgreSQL's
 * `infinity`, set by SQL) counts as banned: the backend's own check, `banned_until > now()`, says so.
 */
export function isBannedAt(bannedUntil: string | null | undefined, nowMs: number): boolean {
  if (bannedUntil === null || bannedUntil === undefined) return false;
  const endsAtMs = Date.parse(bannedUntil);
  return Number.isNaN(endsAtMs) || endsAtMs > nowMs;
}

function summaryOf(user: z.infer<typeof authUser>): AccountSummary {
  return {
    id: user.id,
    email: user.email?.toLowerCase() ?? null,
    created_at: user.created_at ?? null,
    last_sign_in_at: user.last_sign_in_at ?? null,
    banned_until: user.banned_until ?? null,
  };
}

export async function listAccounts(backend: BackendClient): Promise<AccountSummary[]> {
  const accounts: AccountSummary[] = [];
  for (let page = 1; ; page++) {
    const { body } = await backend.request(`/auth/v1/admin/users?page=${page}&per_page=${PAGE_SIZE}`, {
      credential: { serviceRole: true },
    });
    const { users } = userPage.parse(body);
    accounts.push(...users.map(summaryOf));
    if (users.length < PAGE_SIZE) return accounts;
  }
}

/** One account, asked of the backend now; undefined once it is deleted (404, or GoTrue's soft deletion). */
export async function findAccount(backend: BackendClient, userId: string): Promise<AccountSummary | undefined> {
  try {
    const { body } = await backend.request(`/auth/v1/admin/users/${encodeURIComponent(userId)}`, {
      credential: { serviceRole: true },
    });
    const user = authUser.parse(body);
    return user.deleted_at ? undefined : summaryOf(user);
  } catch (error) {
    if (error instanceof BackendError && error.status === 404) return undefined;
    throw error;
  }
}

export async function findAccountByEmail(backend: BackendClient, email: string): Promise<AccountSummary | undefined> {
  const wanted = email.trim().toLowerCase();
  return (await listAccounts(backend)).find((account) => account.email === wanted);
}

export interface TemporaryAccount {
  id: string;
  email: string;
  password: string;
  /** Why the database did not take it as a check account (its deletion is then audited), if it did not. */
  unmarked?: string;
}

/**
 * A confirmed account with a random password, marked in its metadata so an owner who finds one
 * left behind (the server stopped mid-run) knows where it came from. The `.invalid` domain can
 * never receive mail (RFC 2606). The database is told at once that it is a check account
 * (public.admin_mark_check_account), so deleting it minutes later writes nothing to the audit log:
 * a check must not fill the log it checks. A project without that function still gets the account.
 */
export async function createTemporaryAccount(
  backend: BackendClient,
  purpose: 'verify' | 'browser-proof',
): Promise<TemporaryAccount> {
  const email = `${purpose}-${randomBytes(6).toString('hex')}@studyhall.invalid`;
  const password = randomBytes(18).toString('base64url');
  const { body } = await backend.request('/auth/v1/admin/users', {
    credential: { serviceRole: true },
    body: { email, password, email_confirm: true, user_metadata: { studyhall_temporary: purpose } },
  });
  const id = authUser.parse(body).id;
  try {
    await backend.rpc('admin_mark_check_account', { p_user_id: id, p_purpose: purpose }, { serviceRole: true });
    return { id, email, password };
  } catch (error) {
    return { id, email, password, unmarked: (error as Error).message };
  }
}

export async function deleteAccount(backend: BackendClient, userId: string): Promise<void> {
  await backend.request(`/auth/v1/admin/users/${encodeURIComponent(userId)}`, {
    method: 'DELETE',
    credential: { serviceRole: true },
  });
}

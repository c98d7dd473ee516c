// The accounts of the Users page: what the auth admin API knows (e-mail, sign-up, last sign-in, ban)
// joined with public.admin_user_facts() (handle, last seen, sessions, storage), and the actions on
// one account, each through the backend's own API so they work the same on a hosted project:
// GoTrue's admin endpoints for reset links and bans, the Storage API for the account's objects,
// and the database's admin_delete_account for the account itself (so its audit row names the admin).
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { isBannedAt, listAccounts, type AccountSummary } from '../backend-users.ts';
import { callPatchFunction } from '../patch-functions.ts';
import { listStoredObjects, removeObjects } from '../storage/stored-objects.ts';

const userFacts = z.object({
  user_id: z.string(),
  handle: z.string().nullable(),
  last_seen: z.string().nullable(),
  sessions: z.number(),
  minutes: z.number(),
  storage_bytes: z.number(),
  storage_objects: z.number(),
});
type UserFacts = z.infer<typeof userFacts>;

export interface UserRow extends AccountSummary {
  handle: string | null;
  last_seen: string | null;
  sessions: number;
  minutes: number;
  storage_bytes: number;
  storage_objects: number;
  /** banned_until lies in the future. */
  banned: boolean;
}

/** The ban lengths the page offers, as GoTrue's ban_duration (a Go duration). */
export const BAN_DURATIONS = {
  '1h': 'one hour',
  '24h': 'one day',
  '168h': 'one week',
  '720h': '30 days',
  // GoTrue has no "forever": a century is what its own dashboard sends.
  '876000h': 'until unbanned',
} as const;
export type BanDuration = keyof typeof BAN_DURATIONS;

async function readFacts(backend: BackendClient): Promise<Map<string, UserFacts>> {
  const body = await callPatchFunction(backend, 'admin_user_facts');
  return new Map(
    z
      .array(userFacts)
      .parse(body)
      .map((facts) => [facts.user_id, facts]),
  );
}

/** Every account, newest first. An account the app's tables do not know yet shows zeros. */
export async function listUserRows(backend: BackendClient, nowMs = Date.now()): Promise<UserRow[]> {
  const [accounts, facts] = await Promise.all([listAccounts(backend), readFacts(backend)]);
  return accounts
    .map((account) => {
      const known = facts.get(account.id);
      return {
        ...account,
        handle: known?.handle ?? null,
        last_seen: known?.last_seen ?? null,
        sessions: known?.sessions ?? 0,
        minutes: known?.minutes ?? 0,
        storage_bytes: known?.storage_bytes ?? 0,
        storage_objects: known?.storage_objects ?? 0,
        banned: isBannedAt(account.banned_until, nowMs),
      };
    })
    .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? '') || a.id.localeCompare(b.id));
}

/** The rows whose e-mail or handle contains the query (any case), or whose id it is. */
export function matchUserRows(rows: UserRow[], query: string): UserRow[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return rows;
  return rows.filter(
    (row) =>
      (row.email ?? '').includes(needle) || (row.handle ?? '').toLowerCase().includes(needle) || row.id === needle,
  );
}

export async function findUserRow(backend: BackendClient, userId: string): Promise<UserRow> {
  const row = (await listUserRows(backend)).find((candidate) => candidate.id === userId);
  if (!row) throw new GatewayError(404, 'user_not_found', 'No account has that id.');
  return row;
}

/** A one-time recovery link (GoTrue's generate_link): shown to the admin, who hands it over. */
export async function generateResetLink(backend: BackendClient, email: string): Promise<string> {
  const { body } = await backend.request('/auth/v1/admin/generate_link', {
    credential: { serviceRole: true },
    body: { type: 'recovery', email },
  });
  const parsed = z
    .object({ action_link: z.string().optional(), properties: z.object({ action_link: z.string() }).optional() })
    .loose()
    .parse(body);
  const link = parsed.action_link ?? parsed.properties?.action_link;
  if (!link) throw new GatewayError(502, 'no_action_link', 'The backend made no reset link.');
  return link;
}

/** Mails the student a reset link, as "Forgot password?" does (SMTP or the backend's outbox). */
export async function mailResetLink(backend: BackendClient, email: string): Promise<void> {
  await backend.request('/auth/v1/recover', { credential: { serviceRole: true }, body: { email } });
}

/** Bans for a GoTrue duration ("24h"), or lifts the ban ("none"). */
export async function setBan(backend: BackendClient, userId: string, duration: BanDuration | 'none'): Promise<void> {
  await backend.request(`/auth/v1/admin/users/${encodeURIComponent(userId)}`, {
    method: 'PUT',
    credential: { serviceRole: true },
    body: { ban_duration: duration },
  });
}

/**
 * Deletes the account with everything of it: first its stored objects through the Storage API
 * (the database keeps no file), then the auth user through public.admin_delete_account, whose
 * deletion removes its rows as docs/database.md describes and records one audit row naming the
 * console's admin (the `backend` given names her). Objects first, so a failure leaves an account
 * without files rather than files nobody owns. Returns how many objects went.
 */
export async function deleteUserWithEverything(backend: BackendClient, userId: string): Promise<number> {
  const owned = (await listStoredObjects(backend)).filter((object) => object.owner === userId);
  const byBucket = new Map<string, string[]>();
  for (const object of owned) byBucket.set(object.bucket, [...(byBucket.get(object.bucket) ?? []), object.name]);
  let removed = 0;
  for (const [bucket, names] of byBucket) removed += (await removeObjects(backend, bucket, names)).length;
  if (removed < owned.length)
    throw new GatewayError(
      502,
      'objects_not_removed',
      `Only ${removed} of the account's ${owned.length} stored objects could be removed; the account was kept. Try again.`,
    );
  await callPatchFunction(backend, 'admin_delete_account', { p_user_id: userId });
  return removed;
}

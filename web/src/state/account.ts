// The student's account through the backend's own auth API (supabase-js at /__backend), so the
// same screens work against a hosted project: asking for a recovery link and following it,
// setting a new password, changing the password or the e-mail, signing out everywhere, downloading
// her data and deleting the account (with her password entered again, which the database asks of
// the session). Like sign-out.ts it sits on top of the state modules: it stops presence and
// backups before the session ends.
import type { SupabaseClient } from '@supabase/supabase-js';
import { ApiError } from '../lib/api.ts';
import { appAddress } from '../lib/app-address.ts';
import type { AuthLink } from '../lib/auth-link.ts';
import { readStoredAccount } from '../lib/session-storage.ts';
import { startAutoBackup, stopAutoBackup } from './backups.ts';
import { accountFarewell } from './farewell.ts';
import { stopPresence } from './presence.ts';
import { account } from './signals.ts';

async function client(): Promise<SupabaseClient> {
  return (await import('../lib/supabase.ts')).supabase();
}

interface AuthFailure {
  name?: string;
  status?: number;
  code?: string;
  message: string;
  reasons?: unknown[];
}

/** An auth-js error as the app's ApiError: offline, the backend down, or the backend's own code. */
export function fromAuthError(error: AuthFailure): ApiError {
  if (error.name === 'AuthRetryableFetchError' || !error.status)
    return new ApiError(0, 'offline', 'The server could not be reached.');
  if (error.status >= 500) return new ApiError(error.status, 'backend_down', error.message);
  // The gateway's own limits (per address, per account) answer in its JSON body, not GoTrue's.
  if (error.status === 429) return new ApiError(429, 'rate_limited', error.message);
  if (error.name === 'AuthWeakPasswordError' || error.code === 'weak_password')
    return new ApiError(error.status, 'weak_password', error.message, { reasons: error.reasons ?? [] });
  return new ApiError(error.status, error.code ?? 'auth_error', error.message);
}

interface RpcFailure {
  code?: string;
  message?: string;
}

/** A Data API call's failure: offline, the backend down, or the database's stable code. */
function fromRpcError(error: RpcFailure, status: number): ApiError {
  if (!status) return new ApiError(0, 'offline', 'The server could not be reached.');
  if (status >= 500 && !/^P0\d{3}$/.test(error.code ?? ''))
    return new ApiError(status, 'backend_down', error.message ?? '');
  // A database raise carries its stable code as the message (docs/database.md).
  const code = /^P0\d{3}$/.test(error.code ?? '') ? (error.message ?? 'rejected') : (error.code ?? `http_${status}`);
  return new ApiError(status, code, error.message ?? '');
}

/**
 * Where a mailed link returns to: this app at the students' address (lib/app-address.ts), since the
 * mail may be opened on another device. When that is unknown (the server unreadable from a loopback
 * page) none is asked for, and the backend sends the browser to its site URL, which the server sets
 * to the same address.
 */
async function linkTarget(path: string): Promise<string | undefined> {
  const base = await appAddress();
  return base ? `${base}${path}` : undefined;
}

/** Asks for a recovery link. The answer is the same whether or not the address has an account. */
export async function requestPasswordReset(email: string): Promise<void> {
  const { error } = await (
    await client()
  ).auth.resetPasswordForEmail(email, {
    redirectTo: await linkTarget('/reset-password'),
  });
  if (error) throw fromAuthError(error);
}

/** Signs in with the session a mailed link brought back (recovery, e-mail change). */
export async function adoptLinkSession(link: Extract<AuthLink, { kind: 'session' }>): Promise<void> {
  const auth = (await client()).auth;
  const { data, error } = await auth.setSession({ access_token: link.accessToken, refresh_token: link.refreshToken });
  if (error) throw fromAuthError(error);
  const user = data.user ?? data.session?.user;
  account.value = readStoredAccount() ?? (user ? { userId: user.id, email: user.email ?? null } : null);
}

/** After following a recovery link: no current password is asked (the link proved the mailbox). */
export async function setNewPassword(password: string): Promise<void> {
  const { error } = await (await client()).auth.updateUser({ password });
  if (error) throw fromAuthError(error);
}

export async function changePassword(currentPassword: string, password: string): Promise<void> {
  const { error } = await (await client()).auth.updateUser({ password, current_password: currentPassword });
  if (error) throw fromAuthError(error);
}

/** The address changes once the student opens the links mailed to the new address and to the current one. */
export async function changeEmail(email: string): Promise<void> {
  const { error } = await (
    await client()
  ).auth.updateUser({ email }, { emailRedirectTo: await linkTarget('/settings') });
  if (error) throw fromAuthError(error);
}

/** Ends every session of the account (other browsers, the phone); this device returns to the welcome screen. */
export async function signOutEverywhere(): Promise<void> {
  await stopPresence().catch(() => undefined);
  const { error } = await (await client()).auth.signOut({ scope: 'global' });
  if (error) throw fromAuthError(error);
  account.value = null;
}

/** Everything the backend holds of the student, as one JSON file. */
export async function exportMyData(): Promise<Blob> {
  const { data, error, status } = await (await client()).rpc('export_my_data');
  if (error) throw fromRpcError(error, status);
  return new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' });
}

/** Her own folders: the database refuses to delete an account while any of her files remain. */
const OWN_BUCKETS = ['avatars', 'study-material', 'backups'];

/** A Storage API failure: one without an HTTP status never reached the server. */
function fromStorageError(error: { message: string; status?: number }): ApiError {
  const status = typeof error.status === 'number' ? error.status : 0;
  if (!status) return new ApiError(0, 'offline', 'The server could not be reached.');
  return new ApiError(status, status >= 500 ? 'backend_down' : 'storage_failed', error.message);
}

async function listFiles(sb: SupabaseClient, bucket: string, folder: string): Promise<string[]> {
  const { data, error } = await sb.storage.from(bucket).list(folder, { limit: 1000 });
  if (error) throw fromStorageError(error as { message: string; status?: number });
  const files: string[] = [];
  for (const entry of data) {
    const path = `${folder}/${entry.name}`;
    // A folder is listed without an id.
    if (entry.id) files.push(path);
    else files.push(...(await listFiles(sb, bucket, path)));
  }
  return files;
}

async function removeOwnFiles(sb: SupabaseClient, userId: string): Promise<void> {
  for (const bucket of OWN_BUCKETS) {
    const files = await listFiles(sb, bucket, userId);
    if (files.length === 0) continue;
    const { error } = await sb.storage.from(bucket).remove(files);
    if (error) throw fromStorageError(error as { message: string; status?: number });
  }
}

/** Deletes everything this device keeps for the student: her database and the stored session. */
async function forgetOnThisDevice(userId: string): Promise<void> {
  account.value = null; // session-start.ts closes her database first
  await new Promise<void>((resolve) => {
    const request = indexedDB.deleteDatabase(`studyhall-${userId}`);
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  });
  for (const key of Object.keys(localStorage)) if (key.startsWith('studyhall')) localStorage.removeItem(key);
}

/** What the student types to delete her account: her handle, or `delete` when she has none (as the database asks). */
export function confirmationWord(handle: string | null | undefined): string {
  return handle?.trim() ? handle.trim() : 'delete';
}

/** The database's own comparison: trimmed, in any case. */
export function confirms(typed: string, word: string): boolean {
  return typed.trim().toLowerCase() === word.toLowerCase();
}

/** Her handle as the backend holds it now (the device's copy may be older). */
async function currentHandle(sb: SupabaseClient, userId: string): Promise<string | null> {
  const { data, error, status } = await sb.from('user_profiles').select('handle').eq('user_id', userId).maybeSingle();
  if (error) throw fromRpcError(error, status);
  return (data as { handle: string | null } | null)?.handle ?? null;
}

/**
 * Signs in again with the password she typed: the auth server checks it (with its rate limits
 * and the account's budget of wrong passwords), and the session it starts is the one
 * delete_my_account accepts, since it entered the password just now. A wrong one changes nothing.
 */
async function provePassword(sb: SupabaseClient, userId: string, password: string): Promise<void> {
  const email = account.value?.email;
  if (!email) throw new ApiError(401, 'invalid_token', 'Sign in again.');
  const { data, error } = await sb.auth.signInWithPassword({ email, password });
  if (error) throw fromAuthError(error);
  if (data.user?.id !== userId) throw new ApiError(401, 'invalid_token', 'Sign in again.');
}

/**
 * Deletes the account: her password and the word she typed are checked first (nothing goes while
 * either is wrong), then her files (the database refuses while any remain), then delete_my_account,
 * then everything of hers on this device; the welcome screen then says the account was deleted.
 */
export async function deleteMyAccount(confirmation: string, password: string): Promise<void> {
  const userId = account.value?.userId;
  const email = account.value?.email ?? null;
  if (!userId) throw new ApiError(401, 'invalid_token', 'Sign in again.');
  const sb = await client();
  if (!confirms(confirmation, confirmationWord(await currentHandle(sb, userId))))
    throw new ApiError(400, 'invalid_confirmation', 'The word typed is not the one asked for.');
  await provePassword(sb, userId, password);
  stopAutoBackup(); // no new snapshot file while the account goes
  try {
    await removeOwnFiles(sb, userId);
    const { error, status } = await sb.rpc('delete_my_account', { p_confirm: confirmation });
    if (error) throw fromRpcError(error, status);
  } catch (error) {
    // Still here: her backups carry on.
    void startAutoBackup().catch(() => undefined);
    throw error;
  }
  await stopPresence().catch(() => undefined);
  await sb.auth.signOut({ scope: 'local' }).catch(() => undefined);
  accountFarewell.value = { email };
  await forgetOnThisDevice(userId);
}

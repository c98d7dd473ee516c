// Where supabase-js keeps the session, read here without loading supabase-js: a cold start knows
// who is signed in (and opens their data) before any network request.
export const AUTH_STORAGE_KEY = 'studyhall-auth';

export interface StoredAccount {
  userId: string;
  email: string | null;
}

export function readStoredAccount(storage: Pick<Storage, 'getItem'> = localStorage): StoredAccount | null {
  try {
    const session = JSON.parse(storage.getItem(AUTH_STORAGE_KEY) ?? 'null') as {
      user?: { id?: unknown; email?: unknown };
    } | null;
    const id = session?.user?.id;
    if (typeof id !== 'string' || id === '') return null;
    return { userId: id, email: typeof session?.user?.email === 'string' ? session.user.email : null };
  } catch {
    return null;
  }
}

/** Set once a student has been signed in on this device, and kept after signing out. */
export const SIGNED_IN_BEFORE_KEY = 'studyhall-signed-in-before';

/** Whether anyone has been signed in on this device, so the welcome screen can tell a first visit. */
export function signedInHereBefore(storage: Pick<Storage, 'getItem'> = localStorage): boolean {
  try {
    return storage.getItem(SIGNED_IN_BEFORE_KEY) === '1' || readStoredAccount(storage) !== null;
  } catch {
    return false;
  }
}

export function rememberSignedInHere(storage: Pick<Storage, 'setItem'> = localStorage): void {
  try {
    storage.setItem(SIGNED_IN_BEFORE_KEY, '1');
  } catch {
    // Storage refused (private mode, full): the next visit is greeted as a first one, nothing worse.
  }
}

/**
 * The stored access token while it is still valid for a while, or null. The focus page names its
 * student with it on the relay's snapshot posts (the phase-end push) without loading supabase-js;
 * supabase-js refreshes the stored session whenever it runs.
 */
export function readStoredAccessToken(
  storage: Pick<Storage, 'getItem'> = localStorage,
  now = Date.now(),
): string | null {
  try {
    const session = JSON.parse(storage.getItem(AUTH_STORAGE_KEY) ?? 'null') as {
      access_token?: unknown;
      expires_at?: unknown;
    } | null;
    const token = session?.access_token;
    if (typeof token !== 'string' || token === '') return null;
    if (typeof session?.expires_at === 'number' && session.expires_at * 1000 <= now + 10_000) return null;
    return token;
  } catch {
    return null;
  }
}

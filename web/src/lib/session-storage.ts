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

/**
 * The account whose sign-in the server ended on this device (a password changed or reset
 * elsewhere, a ban, every session ended): kept until she signs in again or signs out, so a reload
 * still shows her data with "Signed out on this device" instead of the welcome screen.
 */
export const ENDED_SESSION_KEY = 'studyhall-session-ended';

/** Set when a student signs out herself (on any tab), so other tabs follow her to the welcome screen. */
export const SIGNED_OUT_BY_CHOICE_KEY = 'studyhall-signed-out-by-choice';

export function readEndedSession(storage: Pick<Storage, 'getItem'> = localStorage): StoredAccount | null {
  try {
    const stored = JSON.parse(storage.getItem(ENDED_SESSION_KEY) ?? 'null') as {
      userId?: unknown;
      email?: unknown;
    } | null;
    if (typeof stored?.userId !== 'string' || stored.userId === '') return null;
    return { userId: stored.userId, email: typeof stored.email === 'string' ? stored.email : null };
  } catch {
    return null;
  }
}

export function rememberEndedSession(who: StoredAccount, storage: Pick<Storage, 'setItem'> = localStorage): void {
  try {
    storage.setItem(ENDED_SESSION_KEY, JSON.stringify({ userId: who.userId, email: who.email }));
  } catch {
    // Storage refused: this page still says so; a reload shows the welcome screen, and her data waits.
  }
}

export function rememberSignOutByChoice(userId: string, storage: Pick<Storage, 'setItem'> = localStorage): void {
  try {
    storage.setItem(SIGNED_OUT_BY_CHOICE_KEY, userId);
  } catch {
    // Storage refused: another tab may then say "signed out on this device"; signing in again fixes it.
  }
}

export function signedOutByChoice(userId: string, storage: Pick<Storage, 'getItem'> = localStorage): boolean {
  try {
    return storage.getItem(SIGNED_OUT_BY_CHOICE_KEY) === userId;
  } catch {
    return false;
  }
}

function forget(key: string, storage: Pick<Storage, 'removeItem'>): void {
  try {
    storage.removeItem(key);
  } catch {
    // Nothing stored to forget.
  }
}

export function forgetEndedSession(storage: Pick<Storage, 'removeItem'> = localStorage): void {
  forget(ENDED_SESSION_KEY, storage);
}

export function forgetSignOutByChoice(storage: Pick<Storage, 'removeItem'> = localStorage): void {
  forget(SIGNED_OUT_BY_CHOICE_KEY, storage);
}

/** A sign-in ends both marks. */
export function forgetSessionMarks(storage: Pick<Storage, 'removeItem'> = localStorage): void {
  forgetEndedSession(storage);
  forgetSignOutByChoice(storage);
}

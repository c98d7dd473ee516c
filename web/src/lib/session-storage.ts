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

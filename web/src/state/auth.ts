// Signing up, logging in and out through the gateway's /__auth routes; supabase-js then keeps
// and refreshes the session. Nothing here loads supabase-js before it is needed. The bottom of the
// state modules (the outbox and the backups ask it for tokens), so it imports none of them: what
// else a sign-out does is in sign-out.ts.
import { ApiError, requestJson } from '../lib/api.ts';
import { readStoredAccount } from '../lib/session-storage.ts';
import { account } from './signals.ts';

interface AuthAnswer {
  ok: boolean;
  session: { access_token: string; refresh_token: string; user: { id: string; email?: string } } | null;
  confirmation_required?: boolean;
}

async function loadClient() {
  return (await import('../lib/supabase.ts')).supabase();
}

function toApiError(error: { name?: string; status?: number; code?: string; message: string }): ApiError {
  if (error.name === 'AuthRetryableFetchError' || !error.status)
    return new ApiError(0, 'offline', 'The server could not be reached.');
  return new ApiError(error.status, error.code ?? 'auth_error', error.message);
}

export type AuthMode = 'login' | 'signup';

export async function signIn(mode: AuthMode, email: string, password: string): Promise<void> {
  const answer = await requestJson<AuthAnswer>(mode === 'signup' ? '/__auth/signup' : '/__auth/login', {
    body: { username: email, password },
  });
  if (!answer.session)
    throw new ApiError(
      202,
      'confirmation_required',
      'Confirm your e-mail address from the message the backend sent, then log in.',
    );
  const client = await loadClient();
  const { error } = await client.auth.setSession({
    access_token: answer.session.access_token,
    refresh_token: answer.session.refresh_token,
  });
  if (error) throw toApiError(error);
  account.value = readStoredAccount() ?? { userId: answer.session.user.id, email: answer.session.user.email ?? email };
}

/** The current access token (refreshed when it expired, or when `refresh` asks). */
export async function accessToken(refresh = false): Promise<string | null> {
  if (!account.value) return null;
  const client = await loadClient();
  if (refresh) {
    const { data, error } = await client.auth.refreshSession();
    if (error) throw toApiError(error);
    return data.session?.access_token ?? null;
  }
  const { data, error } = await client.auth.getSession();
  if (error) throw toApiError(error);
  return data.session?.access_token ?? null;
}

/** A token for the gateway's own bearer routes; a clear error when the student must sign in again. */
export async function requireToken(): Promise<string> {
  const token = await accessToken();
  if (!token) throw new ApiError(401, 'invalid_token', 'Sign in again.');
  return token;
}

/** Forgets the session on this device; sign-out.ts's signOut says goodbye to the backend first. */
export async function endSession(): Promise<void> {
  try {
    const client = await loadClient();
    await client.auth.signOut({ scope: 'local' });
  } finally {
    account.value = null;
  }
}

/** supabase-js signs the student out when the refresh token is refused: follow it. */
export async function watchSession(): Promise<void> {
  const client = await loadClient();
  client.auth.onAuthStateChange((event) => {
    if (event === 'SIGNED_OUT') account.value = null;
  });
}

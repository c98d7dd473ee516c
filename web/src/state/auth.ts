// Signing up, logging in and out through the gateway's /__auth routes; supabase-js then keeps
// and refreshes the session. Nothing here loads supabase-js before it is needed. The bottom of the
// state modules (the outbox and the backups ask it for tokens), so it imports none of them: what
// else a sign-out does is in sign-out.ts.
//
// A sign-in the server ended (a password changed or reset elsewhere, a ban, every session ended)
// is told apart from one the student ended herself: the server refused this device's session
// (its refresh token, or the session behind its access token), so the student's data stays open,
// her changes wait in the outbox, and `sessionEnded` makes every screen say "Signed out on this
// device — sign in again" until she does. It is noticed when a token is refreshed and by
// checkSession, which the health watch runs every SESSION_CHECK_MS while the tab is visible.
import { ApiError, requestJson } from '../lib/api.ts';
import { clientConfig } from '../lib/client-config.ts';
import {
  forgetSessionMarks,
  readStoredAccessToken,
  readStoredAccount,
  rememberEndedSession,
  rememberSignOutByChoice,
  signedOutByChoice,
} from '../lib/session-storage.ts';
import { account, sessionEnded } from './signals.ts';

interface AuthAnswer {
  ok: boolean;
  session: { access_token: string; refresh_token: string; user: { id: string; email?: string } } | null;
  confirmation_required?: boolean;
}

/** How often a visible page asks the server whether this device is still signed in. */
export const SESSION_CHECK_MS = 30_000;
/**
 * How long a sign-out that the server did not ask for waits for this tab, or another, to say it
 * was the student's own (sign-out.ts, Settings' "sign out everywhere", deleting the account).
 */
const OWN_SIGN_OUT_GRACE_MS = 1_000;

async function loadClient() {
  return (await import('../lib/supabase.ts')).supabase();
}

interface AuthFailure {
  name?: string;
  status?: number;
  code?: string;
  message: string;
}

function toApiError(error: AuthFailure): ApiError {
  if (error.name === 'AuthRetryableFetchError' || !error.status)
    return new ApiError(0, 'offline', 'The server could not be reached.');
  return new ApiError(error.status, error.code ?? 'auth_error', error.message);
}

/**
 * The server refused this device's session for good: its refresh token is unknown, spent or of a
 * banned account, or the session behind the access token is gone. Not a network failure (the
 * server may be away) and not a server error.
 */
export function isSessionRefusal(error: AuthFailure): boolean {
  if (error.name === 'AuthRetryableFetchError') return false;
  if (error.name === 'AuthSessionMissingError') return true;
  return error.status === 400 || error.status === 401 || error.status === 403;
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
  forgetSessionMarks();
  sessionEnded.value = false;
  account.value = readStoredAccount() ?? { userId: answer.session.user.id, email: answer.session.user.email ?? email };
}

/**
 * The server ended this device's sign-in: keep her data open and say so everywhere. supabase-js
 * forgets the refused session (so nothing keeps sending it), and the mark in localStorage keeps
 * the state through a reload. A sign-out she chose on another tab is followed instead.
 */
async function sessionGone(): Promise<void> {
  const who = account.value;
  if (!who || sessionEnded.value) return;
  if (signedOutByChoice(who.userId)) {
    account.value = null;
    return;
  }
  rememberEndedSession(who);
  sessionEnded.value = true;
  try {
    await (await loadClient()).auth.signOut({ scope: 'local' });
  } catch {
    // Already forgotten.
  }
}

/** The current access token (refreshed when it expired, or when `refresh` asks); null once signed out. */
export async function accessToken(refresh = false): Promise<string | null> {
  if (!account.value || sessionEnded.value) return null;
  const client = await loadClient();
  if (refresh) {
    const { data, error } = await client.auth.refreshSession();
    if (error && isSessionRefusal(error)) {
      await sessionGone();
      return null;
    }
    if (error) throw toApiError(error);
    return data.session?.access_token ?? null;
  }
  const { data, error } = await client.auth.getSession();
  if (error && isSessionRefusal(error)) {
    await sessionGone();
    return null;
  }
  if (error) throw toApiError(error);
  // supabase-js dropped the session it could not refresh (at a start after a long sleep, say).
  if (!data.session) await sessionGone();
  return data.session?.access_token ?? null;
}

/** A token for the gateway's own bearer routes; a clear error when the student must sign in again. */
export async function requireToken(): Promise<string> {
  const token = await accessToken();
  if (!token) throw new ApiError(401, 'invalid_token', 'Sign in again.');
  return token;
}

let lastCheck = 0;
let checking: Promise<void> | undefined;

/**
 * Whether the server still knows this device's session: GoTrue's GET /user with the stored access
 * token, which answers 401 or 403 (session_not_found) for an ended session or a banned account.
 * A plain request, not supabase-js: its session lock must stay free for the writes (a Finish whose
 * tab closes at once sends its session without waiting behind a check). Null when nothing can be
 * said (no stored token still valid, the server unreachable, a server error).
 */
async function serverKnowsSession(): Promise<boolean | null> {
  const token = readStoredAccessToken();
  if (!token) return null;
  const config = await clientConfig();
  try {
    const answer = await fetch(`${config.backend_url}/auth/v1/user`, {
      headers: { apikey: config.anon_key, authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
    if (answer.ok) return true;
    return answer.status === 401 || answer.status === 403 ? false : null;
  } catch {
    return null;
  }
}

/**
 * Asks the server whether this device is still signed in. At most every SESSION_CHECK_MS unless
 * `now` asks (a refused request just hinted at it); a server that cannot be reached says nothing
 * about the session. A session it no longer knows is ended only once a refresh is refused too (an
 * access token that merely expired is refreshed).
 */
export function checkSession(now = false): Promise<void> {
  if (!account.value || sessionEnded.value) return Promise.resolve();
  if (checking) return checking;
  if (!now && Date.now() - lastCheck < SESSION_CHECK_MS) return Promise.resolve();
  lastCheck = Date.now();
  checking = (async () => {
    if ((await serverKnowsSession()) !== false) return;
    const refreshed = await (await loadClient()).auth.refreshSession();
    if (refreshed.error && isSessionRefusal(refreshed.error)) await sessionGone();
  })()
    .catch(() => undefined)
    .finally(() => (checking = undefined));
  return checking;
}

/** Forgets the session on this device; sign-out.ts's signOut says goodbye to the backend first. */
export async function endSession(): Promise<void> {
  const who = account.value;
  // Other tabs follow to the welcome screen instead of saying "signed out on this device".
  if (who) rememberSignOutByChoice(who.userId);
  try {
    const client = await loadClient();
    await client.auth.signOut({ scope: 'local' });
  } finally {
    account.value = null;
  }
}

let watching = false;

/**
 * supabase-js signs out when the server refuses the session (a failed refresh after the token
 * expired, a check that found it gone) or when the student signs out, on this tab or another.
 * A sign-out of her own sets the account to null on its tab at once (and marks it for the other
 * tabs); what is left after a moment was the server's doing.
 */
export async function watchSession(): Promise<void> {
  if (watching) return;
  watching = true;
  const client = await loadClient();
  client.auth.onAuthStateChange((event) => {
    if (event !== 'SIGNED_OUT') return;
    const who = account.value;
    if (!who || sessionEnded.value) return;
    setTimeout(() => {
      if (account.value?.userId === who.userId && !sessionEnded.value) void sessionGone();
    }, OWN_SIGN_OUT_GRACE_MS);
  });
}

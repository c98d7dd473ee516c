// What an e-mail link brought back in the page's fragment. The backend's /verify sends the browser
// to the app with the session (`#access_token=...&refresh_token=...&type=recovery`), with why the
// link failed (`#error=access_denied&error_code=otp_expired&error_description=...`), or, for the
// first of the two links that confirm an e-mail change, with a message and no session
// (`#message=Confirmation+link+accepted...`). supabase-js is told not to read the URL itself (it
// loads only when needed), so the app reads it here.

export type AuthLink =
  | { kind: 'session'; accessToken: string; refreshToken: string; type: string }
  | { kind: 'error'; code: string; description: string }
  | { kind: 'message'; text: string }
  | null;

export function readAuthLink(hash: string): AuthLink {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const accessToken = params.get('access_token');
  const refreshToken = params.get('refresh_token');
  if (accessToken && refreshToken)
    return { kind: 'session', accessToken, refreshToken, type: params.get('type') ?? '' };
  const error = params.get('error_code') ?? params.get('error');
  if (error) return { kind: 'error', code: error, description: params.get('error_description') ?? '' };
  const message = params.get('message');
  if (message) return { kind: 'message', text: message };
  return null;
}

/** A link that failed, in a student's words. */
export function authLinkProblem(code: string): string {
  return code === 'otp_expired'
    ? 'This link has expired or was already used. Links work once, for one hour.'
    : 'This link did not work. It may be incomplete or out of date.';
}

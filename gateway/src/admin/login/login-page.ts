// The unlock page: the admin secret, or an account of this server (the browser signs in through
// /__auth/login and hands the access token over; the server checks it with the backend), or the
// session the app keeps in this browser (same origin, the app's AUTH_STORAGE_KEY): after a
// password-reset or sign-in link mailed to an ADMIN_EMAIL address, that session proves the address.
import { html, type SafeHtml } from '../html.ts';

export interface LoginView {
  next: string;
  secretConfigured: boolean;
  allowedEmails: number;
  error?: string | undefined;
  signedInAs?: string | undefined;
}

/** Where the web app keeps its session (web/src/lib/session-storage.ts AUTH_STORAGE_KEY). */
export const APP_AUTH_STORAGE_KEY = 'studyhall-auth';

// Signs in like the app does, then posts only the access token to /__admin/login.
export const ACCOUNT_LOGIN_SCRIPT = `
(() => {
  const form = document.getElementById('account-login');
  const status = document.getElementById('account-status');
  const tokenForm = document.getElementById('token-form');
  if (!form || !status || !tokenForm) return;
  const appSession = document.getElementById('app-session');
  if (appSession) {
    let stored = null;
    try { stored = JSON.parse(localStorage.getItem('${APP_AUTH_STORAGE_KEY}') || 'null'); } catch { stored = null; }
    const token = stored && typeof stored.access_token === 'string' ? stored.access_token : '';
    if (token) {
      appSession.hidden = false;
      appSession.addEventListener('click', () => {
        tokenForm.elements.namedItem('access_token').value = token;
        tokenForm.submit();
      });
    }
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.textContent = 'Signing in…';
    const data = new FormData(form);
    try {
      const response = await fetch('/__auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ username: String(data.get('email') || ''), password: String(data.get('password') || '') }),
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok || !body.session) {
        status.textContent = (body && body.message) || 'Sign-in failed (HTTP ' + response.status + ').';
        return;
      }
      tokenForm.elements.namedItem('access_token').value = body.session.access_token;
      tokenForm.submit();
    } catch (error) {
      status.textContent = 'Sign-in failed: ' + (error && error.message ? error.message : 'network error') + '.';
    }
  });
})();
`;

export function loginBody(view: LoginView): SafeHtml {
  return html`<h1>Unlock the admin console</h1>
${view.signedInAs ? html`<p class="banner banner-ok">You are signed in as ${view.signedInAs}. <a href="${view.next}">Continue</a></p>` : ''}
${view.error ? html`<p class="banner banner-bad" role="alert">${view.error}</p>` : ''}
<h2 id="secret-heading">With the admin secret</h2>
${
  view.secretConfigured
    ? html`<form class="stack" method="post" action="/__admin/login" aria-labelledby="secret-heading">
  <input type="hidden" name="next" value="${view.next}">
  <label>Admin secret <span class="hint">The value of ADMIN_SECRET on this server.</span>
    <input type="password" name="secret" autocomplete="current-password" required autofocus></label>
  <div class="actions"><button class="primary" type="submit">Unlock</button></div>
</form>`
    : html`<p class="muted">ADMIN_SECRET is not set on this server, so only an allowed account can unlock the console.</p>`
}
<h2 id="account-heading">With an account of this server</h2>
<p class="muted">Allowed: ${view.allowedEmails > 0 ? `the ${view.allowedEmails === 1 ? 'address' : `${view.allowedEmails} addresses`} in ADMIN_EMAIL / ADMIN_EMAILS once the account is confirmed (by the owner with ADMIN_SECRET on the Roles page, or by signing in to the app through a password-reset or sign-in link mailed to that address and unlocking with the app's session below), and ` : ''}accounts with an admin row in user_roles.</p>
<p><button type="button" id="app-session" hidden>Unlock with the app's session in this browser</button></p>
<form class="stack" id="account-login" aria-labelledby="account-heading">
  <label>E-mail <input type="email" name="email" autocomplete="username" required></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <div class="actions"><button type="submit">Sign in and unlock</button> <span id="account-status" role="status" aria-live="polite"></span></div>
  <noscript><p class="muted">This way needs JavaScript: the page signs in like the app does and hands the session to the server.</p></noscript>
</form>
<form id="token-form" method="post" action="/__admin/login" hidden>
  <input type="hidden" name="access_token" value="">
  <input type="hidden" name="next" value="${view.next}">
</form>`;
}

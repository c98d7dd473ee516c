// The roles page: who holds an admin row, the ADMIN_EMAIL(S) accounts and their confirmation by
// the owner, and the grant form.
import { subjectUserId } from '../admin-cookie.ts';
import { html, type SafeHtml } from '../html.ts';
import { SECRET_SUBJECT } from '../login/admin-login.ts';
import { formatTime } from '../times.ts';
import type { AdminEmailAccount } from './email-confirmations.ts';
import { OWN_ROW_REASON, type AdminRow } from './roles.ts';

export interface RolesView {
  rows: AdminRow[];
  allowedEmails: readonly string[];
  emailAccounts: AdminEmailAccount[];
  /** The gateway runs the embedded localbase (its mail goes through SMTP_URL or to the outbox). */
  embeddedBackend: boolean;
  /** Signed in with ADMIN_SECRET: only then can the owner confirm an ADMIN_EMAIL account. */
  canConfirm: boolean;
  /** The subject of the session viewing the page: who may revoke which row depends on it. */
  viewer?: string | undefined;
  notice?: string | undefined;
}

function emailAccountsSection(view: RolesView): SafeHtml {
  const intro = html`<h2>ADMIN_EMAIL accounts</h2>
<p>An account whose e-mail is in ADMIN_EMAIL / ADMIN_EMAILS${view.allowedEmails.length ? html` (now: ${view.allowedEmails.join(', ')})` : ' (none set)'} unlocks the console only once its address is confirmed, since anyone can sign up with an address and signing up proves none: by the owner here, or by the account itself, signing in through a password-reset or sign-in link mailed to that address${view.embeddedBackend ? ' (this server sends them through SMTP_URL, or keeps them on the Outbox page when it is unset)' : ' (only when the backend requires a mailed link to change an address: its mailer_autoconfirm is off)'} and unlocking the console with that session. A confirmation holds for that account and address only; an account deleted and registered again must be confirmed again.</p>`;
  if (view.emailAccounts.length === 0)
    return html`${intro}<p class="muted">No account has one of these addresses yet.</p>`;
  return html`${intro}
${view.canConfirm ? '' : html`<p class="muted">Sign in with ADMIN_SECRET to confirm an account (an account login cannot confirm one).</p>`}
<div class="scroll"><table class="stack">
<thead><tr><th scope="col">Account</th><th scope="col">User id</th><th scope="col">Signed up</th><th scope="col">Status</th></tr></thead>
<tbody>${view.emailAccounts.map(
    (
      account,
    ) => html`<tr><td data-label="Account">${account.email}</td><td data-label="User id"><code>${account.user_id}</code></td><td data-label="Signed up">${account.created_at ? formatTime(account.created_at) : 'unknown'}</td>
<td data-label="Status">${
      account.confirmed
        ? html`Confirmed ${account.confirmed_at ? formatTime(account.confirmed_at) : ''}${account.confirmed_by?.startsWith('mailbox:') ? ' by a link mailed to the address' : ' by the owner'}`
        : view.canConfirm
          ? html`<form method="post" action="/__admin/roles/confirm-email" class="stack">
  <input type="hidden" name="user_id" value="${account.user_id}">
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>This account (signed up ${account.created_at ? formatTime(account.created_at) : 'at an unknown time'}) is mine to trust with the console</span></label>
  <button class="primary" type="submit">Confirm</button></form>`
          : html`<span class="muted">Pending: the owner must confirm it</span>`
    }</td></tr>`,
  )}</tbody></table></div>`;
}

/** The revoke cell of a row: the form where the database would allow it, else why not. */
function revokeCell(row: AdminRow, view: RolesView): SafeHtml {
  const name = row.email ?? row.user_id;
  const last = view.rows.length === 1;
  const owner = view.viewer === SECRET_SUBJECT;
  if (!owner && view.viewer && subjectUserId(view.viewer) === row.user_id)
    return html`<span class="muted">${OWN_ROW_REASON}</span>`;
  if (!owner && last)
    return html`<span class="muted">The last admin row: only the owner, signed in with the admin secret, can revoke it (grant another first otherwise).</span>`;
  return html`<form method="post" action="/__admin/roles" class="stack">
  <input type="hidden" name="_method" value="DELETE"><input type="hidden" name="user_id" value="${row.user_id}"><input type="hidden" name="role" value="admin">
  ${last ? html`<p class="hint">The last admin row: once it is revoked, only the admin secret${view.allowedEmails.length ? ' and confirmed ADMIN_EMAIL accounts' : ''} unlock the console.</p>` : ''}
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>${name} can no longer unlock the console this way</span></label>
  <button class="danger" type="submit">Revoke admin from ${name}</button></form>`;
}

export function rolesBody(view: RolesView): SafeHtml {
  return html`<h1>Roles</h1>
<p>An account unlocks the console with a backend login when it has an <code>admin</code> row in <code>user_roles</code>, or when its e-mail is in ADMIN_EMAIL / ADMIN_EMAILS and the owner has confirmed it (below). The owner, signed in with the admin secret, may revoke any admin row; an admin signed in with an account may revoke any but the row that account signed in with, and never the last one.</p>
${view.notice ? html`<p class="banner banner-ok" role="status">${view.notice}</p>` : ''}
${emailAccountsSection(view)}
<h2 id="admin-rows">Admin rows</h2>
${
  view.rows.length === 0
    ? html`<p class="muted">No account has an admin row.</p>`
    : html`<div class="scroll"><table class="stack" aria-labelledby="admin-rows">
<thead><tr><th scope="col">Account</th><th scope="col">User id</th><th scope="col">Granted</th><th scope="col">Revoke</th></tr></thead>
<tbody>${view.rows.map(
        (
          row,
        ) => html`<tr><td data-label="Account"><span>${row.email ?? 'unknown'}${row.in_admin_emails ? html` <span class="muted">(also in ADMIN_EMAILS)</span>` : ''}</span></td><td data-label="User id"><code>${row.user_id}</code></td><td data-label="Granted">${formatTime(row.created_at)}</td>
<td data-label="Revoke">${revokeCell(row, view)}</td></tr>`,
      )}</tbody></table></div>`
}
<h2>Grant admin</h2>
<form class="stack" method="post" action="/__admin/roles">
  <input type="hidden" name="role" value="admin">
  <label>E-mail or user id <span class="hint">The account must exist (it signed up on this server).</span>
    <input type="text" name="account" required spellcheck="false" autocomplete="off"></label>
  <div class="actions"><button class="primary" type="submit">Grant admin</button></div>
</form>`;
}

// The roles page: who holds an admin row, who is allowed by ADMIN_EMAIL(S), and the grant form.
import { html, type SafeHtml } from '../html.ts';
import { formatTime } from '../layout.ts';
import type { AdminRow } from './roles.ts';

export function rolesBody(view: { rows: AdminRow[]; allowedEmails: readonly string[]; notice?: string | undefined }): SafeHtml {
  const last = view.rows.length === 1;
  return html`<h1>Roles</h1>
<p>An account unlocks the console with a backend login when it has an <code>admin</code> row in <code>user_roles</code> or its e-mail is in ADMIN_EMAIL / ADMIN_EMAILS${view.allowedEmails.length ? html` (now: ${view.allowedEmails.join(', ')})` : ' (none set)'}.</p>
${view.notice ? html`<p class="banner banner-ok" role="status">${view.notice}</p>` : ''}
<h2>Admin rows</h2>
${
  view.rows.length === 0
    ? html`<p class="muted">No account has an admin row.</p>`
    : html`<div class="scroll"><table class="stack">
<thead><tr><th scope="col">Account</th><th scope="col">User id</th><th scope="col">Granted</th><th scope="col">Revoke</th></tr></thead>
<tbody>${view.rows.map(
        (row) => html`<tr><td data-label="Account">${row.email ?? 'unknown'}${row.in_admin_emails ? html` <span class="muted">(also in ADMIN_EMAILS)</span>` : ''}</td><td data-label="User id"><code>${row.user_id}</code></td><td data-label="Granted">${formatTime(row.created_at)}</td>
<td data-label="Revoke">${
          last
            ? html`<span class="muted">The last admin row cannot be revoked; grant another first.</span>`
            : html`<form method="post" action="/__admin/roles" class="stack">
  <input type="hidden" name="_method" value="DELETE"><input type="hidden" name="user_id" value="${row.user_id}"><input type="hidden" name="role" value="admin">
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>${row.email ?? row.user_id} can no longer unlock the console this way</span></label>
  <button class="danger" type="submit">Revoke admin</button></form>`
        }</td></tr>`,
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

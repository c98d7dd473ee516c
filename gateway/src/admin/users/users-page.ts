// The Users page: a search over e-mail and handle, every account newest first, and one account's
// page with what can be done to it (reset link, ban, delete with everything).
import { html, type SafeHtml } from '../html.ts';
import { formatBytes, plural } from '../layout.ts';
import { formatTime } from '../times.ts';
import { BAN_DURATIONS, type UserRow } from './users.ts';

export interface UsersView {
  rows: UserRow[];
  query: string;
  total: number;
  notice?: string | undefined;
}

function accountName(row: UserRow): string {
  return row.email ?? row.handle ?? row.id;
}

function status(row: UserRow): SafeHtml {
  return row.banned
    ? html`<span class="status-bad">Banned until ${formatTime(row.banned_until)}</span>`
    : html`<span class="muted">Active</span>`;
}

export function usersBody(view: UsersView): SafeHtml {
  const shown =
    view.query === ''
      ? plural(view.total, 'account')
      : `${plural(view.rows.length, 'account')} of ${view.total} match “${view.query}”`;
  return html`<h1>Users</h1>
${view.notice ? html`<p class="banner banner-ok" role="status">${view.notice}</p>` : ''}
<form class="stack" method="get" action="/__admin/users" role="search">
  <label>Find an account <span class="hint">Part of an e-mail or a handle.</span>
    <input type="search" name="q" value="${view.query}" spellcheck="false" autocomplete="off"></label>
  <div class="actions"><button class="primary" type="submit">Search</button>${view.query ? html` <a href="/__admin/users">Show all</a>` : ''}</div>
</form>
<p role="status">${shown}, newest first.</p>
${
  view.rows.length === 0
    ? html`<p class="muted">${view.query ? 'No account matches; try part of the address or handle.' : 'Nobody has signed up yet.'}</p>`
    : html`<div class="scroll"><table class="stack">
<thead><tr><th scope="col">Account</th><th scope="col">Handle</th><th scope="col">Signed up</th><th scope="col">Last sign-in</th><th scope="col">Last seen</th><th scope="col">Sessions</th><th scope="col">Storage</th><th scope="col">Status</th></tr></thead>
<tbody>${view.rows.map(
        (row) => html`<tr><td data-label="Account"><a href="/__admin/users/${row.id}">${accountName(row)}</a></td>
<td data-label="Handle">${row.handle ?? html`<span class="muted">none</span>`}</td>
<td data-label="Signed up">${formatTime(row.created_at)}</td>
<td data-label="Last sign-in">${formatTime(row.last_sign_in_at)}</td>
<td data-label="Last seen">${formatTime(row.last_seen)}</td>
<td data-label="Sessions">${row.sessions.toLocaleString('en')}</td>
<td data-label="Storage">${formatBytes(row.storage_bytes)}</td>
<td data-label="Status">${status(row)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

export interface UserView {
  row: UserRow;
  notice?: string | undefined;
  /** A reset link the admin asked to see, shown once. */
  resetLink?: string | undefined;
}

export function userBody(view: UserView): SafeHtml {
  const { row } = view;
  const name = accountName(row);
  return html`<p><a href="/__admin/users">← All users</a></p>
<h1>${name}</h1>
${view.notice ? html`<p class="banner banner-ok" role="status">${view.notice}</p>` : ''}
<dl class="facts">
  <dt>User id</dt><dd><code>${row.id}</code></dd>
  <dt>Handle</dt><dd>${row.handle ?? 'none'}</dd>
  <dt>Signed up</dt><dd>${formatTime(row.created_at)}</dd>
  <dt>Last sign-in</dt><dd>${formatTime(row.last_sign_in_at)}</dd>
  <dt>Last seen</dt><dd>${formatTime(row.last_seen)}</dd>
  <dt>Study</dt><dd>${plural(row.sessions, 'session')}, ${plural(row.minutes, 'minute')} · <a href="/__admin/sessions?account=${row.id}">Sessions of ${name}</a> (void one there)</dd>
  <dt>Storage</dt><dd>${formatBytes(row.storage_bytes)} in ${plural(row.storage_objects, 'object')}</dd>
  <dt>Status</dt><dd>${status(row)}</dd>
</dl>

<h2>Password</h2>
${
  view.resetLink
    ? html`<p role="status">A one-time reset link for ${name}, valid for one hour. Hand it over in person or through a channel you trust: whoever holds it can sign in as ${name}.</p>
<p><input type="text" readonly value="${view.resetLink}" aria-label="Reset link for ${name}"></p>`
    : ''
}
${
  row.email
    ? html`<div class="actions">
<form method="post" action="/__admin/users/${row.id}/reset-link"><input type="hidden" name="delivery" value="mail"><button type="submit">E-mail a reset link</button></form>
<form method="post" action="/__admin/users/${row.id}/reset-link"><input type="hidden" name="delivery" value="show"><button type="submit">Show a reset link</button></form>
</div>
<p class="hint">The e-mail goes out through SMTP when the backend has it, otherwise into the backend's outbox.</p>`
    : html`<p class="muted">This account has no e-mail address, so no reset link can be made.</p>`
}

<h2>Ban</h2>
<p>A banned account cannot sign in or refresh its sessions, and the tokens it holds stop working, in the app and in this console.</p>
${
  row.banned
    ? html`<form method="post" action="/__admin/users/${row.id}/ban" class="stack"><input type="hidden" name="duration" value="none">
  <div class="actions"><button type="submit">Lift the ban on ${name}</button></div></form>`
    : html`<form method="post" action="/__admin/users/${row.id}/ban" class="stack">
  <label>Ban for <select name="duration">${Object.entries(BAN_DURATIONS).map(
    ([value, label]) => html`<option value="${value}"${value === '24h' ? html` selected` : ''}>${label}</option>`,
  )}</select></label>
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>${name} is signed out everywhere and cannot sign in until the ban ends</span></label>
  <div class="actions"><button class="danger" type="submit">Ban ${name}</button></div></form>`
}

<h2>Delete the account</h2>
<p>Deletes ${name} and everything of the account: its stored files, study records, memberships and messages, as the database's deletion rule says. Groups it owned pass to their next owner. This cannot be undone.</p>
<form method="post" action="/__admin/users/${row.id}/delete" class="stack">
  <label>Type the account's ${row.email ? 'e-mail' : 'user id'} to confirm
    <input type="text" name="confirm_account" required spellcheck="false" autocomplete="off"></label>
  <div class="actions"><button class="danger" type="submit">Delete ${name} for good</button></div>
</form>`;
}

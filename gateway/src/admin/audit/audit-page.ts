// The audit log page: public.admin_audit_log, which nobody can edit, newest first a page at a time,
// filtered by action and person, with accounts named by their e-mail where the auth API still
// knows them. A person's name is a link that filters by that person.
import { html, type SafeHtml } from '../html.ts';
import { OWNER_NAME } from '../people.ts';
import { formatTime } from '../times.ts';
import { AUDIT_PAGE_SIZE, type AuditRow } from './audit-log-rows.ts';

/** The actions the filter offers (a family where it ends without `:<name>`), in the order shown. */
export const AUDIT_ACTIONS: ReadonlyArray<{ value: string; label: string }> = [
  { value: 'console:login', label: 'Console sign-ins' },
  { value: 'console:logout', label: 'Console sign-outs' },
  { value: 'console:ban_user', label: 'Bans' },
  { value: 'console:unban_user', label: 'Bans lifted' },
  { value: 'console:mail_reset_link', label: 'Reset links mailed' },
  { value: 'console:show_reset_link', label: 'Reset links shown' },
  { value: 'delete_account', label: 'Account deletions' },
  { value: 'void_session', label: 'Voided study sessions' },
  { value: 'unvoid_session', label: 'Study sessions counted again' },
  { value: 'grant_role', label: 'Roles granted' },
  { value: 'revoke_role', label: 'Roles revoked' },
  { value: 'console:confirm_admin_email', label: 'ADMIN_EMAIL accounts confirmed' },
  { value: 'resolve_report', label: 'Report resolutions' },
  { value: 'delete_message', label: 'Chat messages deleted' },
  { value: 'console:apply_sql', label: 'SQL applied' },
  { value: 'console:repair_backup', label: 'Backup repairs' },
  { value: 'console:restore_backup', label: 'Backup restores' },
  { value: 'console:storage_cleanup', label: 'Storage cleanups' },
];

/** What an entry's action says, in words; the action's own name is shown beneath. */
const ACTION_LABELS: Record<string, string> = {
  'console:login': 'Signed in to the console',
  'console:logout': 'Signed out of the console',
  'console:ban_user': 'Banned',
  'console:unban_user': 'Ban lifted',
  'console:mail_reset_link': 'Reset link mailed',
  'console:show_reset_link': 'Reset link shown',
  'console:confirm_admin_email': 'ADMIN_EMAIL account confirmed',
  'console:apply_sql': 'SQL applied',
  'console:repair_backup': 'Backup repaired',
  'console:restore_backup': 'Backup restored',
  'console:storage_cleanup': 'Storage cleaned up',
  delete_account: 'Account deleted',
  void_session: 'Study session voided',
  unvoid_session: 'Study session counted again',
  grant_role: 'Role granted',
  revoke_role: 'Role revoked',
  delete_message: 'Chat message deleted',
};

function actionLabel(action: string): string {
  const resolution = /^resolve_report:(.+)$/.exec(action)?.[1];
  if (resolution) return `Report resolved: ${resolution.replaceAll('_', ' ')}`;
  return ACTION_LABELS[action] ?? action;
}

const STANDINGS: Record<string, string> = {
  admin: 'admin',
  service_role: 'console',
  group_owner: 'group owner',
  group_moderator: 'group moderator',
  self: 'own account',
};

export interface AuditView {
  entries: AuditRow[];
  /** The filters as the admin gave them (the person as typed). */
  action: string;
  person: string;
  /** Why the person filter matched nobody, when it did not. */
  personProblem?: string | undefined;
  /** The entry this page starts after, when it is not the newest page. */
  before?: number | undefined;
  olderBefore: number | null;
}

function detailText(detail: Record<string, unknown>): string {
  const shown = Object.entries(detail).filter(([key]) => key !== 'console_admin');
  return shown.map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ');
}

function pageUrl(view: Pick<AuditView, 'action' | 'person'>, changes: { person?: string; before?: number }): string {
  const query = new URLSearchParams();
  const action = view.action;
  const person = changes.person ?? view.person;
  if (action) query.set('action', action);
  if (person) query.set('person', person);
  if (changes.before !== undefined) query.set('before', String(changes.before));
  const text = query.toString();
  return `/__admin/audit${text ? `?${text}` : ''}`;
}

function personLink(view: AuditView, person: string | null, name: string): SafeHtml {
  if (!person) return html`${name}`;
  const typed = person === 'secret' ? 'owner' : person;
  return html`<a href="${pageUrl(view, { person: typed })}" title="Only entries of ${name}">${name}</a>`;
}

function filtersForm(view: AuditView): SafeHtml {
  const filtered = Boolean(view.action || view.person);
  return html`<form class="filters" method="get" action="/__admin/audit" role="search" aria-label="Filter the audit log">
  <label>Action <select name="action"><option value="">All actions</option>${AUDIT_ACTIONS.map(
    (item) =>
      html`<option value="${item.value}"${item.value === view.action ? html` selected` : ''}>${item.label}</option>`,
  )}</select></label>
  <label>Person <input type="text" name="person" value="${view.person}" spellcheck="false" autocomplete="off" aria-describedby="person-hint${view.personProblem ? ' person-problem' : ''}"${view.personProblem ? html` aria-invalid="true"` : ''}>
    <span class="hint" id="person-hint">An e-mail, an account id, or “owner” for the admin secret.</span>
    ${view.personProblem ? html`<span class="field-error" id="person-problem">${view.personProblem}</span>` : ''}</label>
  <div class="actions"><button class="primary" type="submit">Filter</button>${filtered ? html` <a href="/__admin/audit">Clear filters</a>` : ''}</div>
</form>`;
}

function pager(view: AuditView): SafeHtml | string {
  const links = [
    view.before !== undefined ? html`<a href="${pageUrl(view, {})}">Newest entries</a>` : '',
    view.olderBefore !== null
      ? html`<a href="${pageUrl(view, { before: view.olderBefore })}" rel="next">Older entries</a>`
      : '',
  ].filter(Boolean);
  return links.length ? html`<nav class="pager" aria-label="Audit log pages">${links}</nav>` : '';
}

export function auditBody(view: AuditView): SafeHtml {
  const range = view.before !== undefined ? `older than entry #${view.before}` : 'the newest';
  return html`<h1>Audit log</h1>
<p>Every console action and every moderation action, once, newest first. The database appends each entry (in the same transaction as the action where the database performs it) and refuses every change to it, from any role. The console's checks (Verify, the browser proof) leave nothing here.</p>
${filtersForm(view)}
${
  view.entries.length === 0
    ? html`<p class="muted">${view.action || view.person ? 'No entry matches these filters.' : 'Nothing has been recorded yet.'}</p>`
    : html`<p class="muted" role="status">${view.entries.length} ${view.entries.length === 1 ? 'entry' : 'entries'}, ${range}${view.olderBefore !== null ? `, ${AUDIT_PAGE_SIZE} a page` : ''}.</p>
<div class="scroll"><table class="stack" aria-label="Audit log entries">
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">On whom</th><th scope="col">Details</th></tr></thead>
<tbody>${view.entries.map(
        (
          row,
        ) => html`<tr><td data-label="When"><span>${formatTime(row.at)} <span class="muted">#${row.id}</span></span></td>
<td data-label="Who"><span>${personLink(view, row.actor_person, row.actor_name)} <span class="muted">(${STANDINGS[row.actor_role] ?? row.actor_role})</span></span></td>
<td data-label="Action"><span>${actionLabel(row.action)}<br><code class="muted">${row.action}</code></span></td>
<td data-label="On whom">${row.target_name ? personLink(view, row.target_user_id, row.target_name) : html`<span class="muted">—</span>`}</td>
<td data-label="Details">${detailText(row.detail)}</td></tr>`,
      )}</tbody></table></div>`
}
${pager(view)}
<p class="muted">“${OWNER_NAME}” is whoever unlocked the console with ADMIN_SECRET. The server also mirrors each console action, one JSON line each, to <code>admin-audit.log</code> in its log folder (LOG_DIR), for its owner.</p>`;
}

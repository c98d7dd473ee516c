// The audit log page: the newest entries of public.admin_audit_log, which nobody can edit, with
// accounts named by their e-mail where the auth API still knows them.
import { html, type SafeHtml } from '../html.ts';
import { formatTime } from '../layout.ts';
import type { AuditRow } from './audit-log-rows.ts';

const STANDINGS: Record<string, string> = {
  admin: 'admin',
  service_role: 'console',
  group_owner: 'group owner',
  group_moderator: 'group moderator',
  self: 'herself',
};

function detailText(detail: Record<string, unknown>): string {
  const shown = Object.entries(detail).filter(([key]) => key !== 'console_admin');
  return shown.map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ');
}

export function auditBody(rows: AuditRow[], limit: number): SafeHtml {
  return html`<h1>Audit log</h1>
<p>Every moderation action and every action the console took on an account, newest first (the last ${limit}). The database appends each entry in the same transaction as the action and refuses every change to it, from any role.</p>
${
  rows.length === 0
    ? html`<p class="muted">Nothing has been recorded yet.</p>`
    : html`<div class="scroll"><table class="stack">
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">On whom</th><th scope="col">Details</th></tr></thead>
<tbody>${rows.map(
        (row) => html`<tr><td data-label="When">${formatTime(row.at)}</td>
<td data-label="Who"><span>${row.actor_name} <span class="muted">(${STANDINGS[row.actor_role] ?? row.actor_role})</span></span></td>
<td data-label="Action"><code>${row.action}</code></td>
<td data-label="On whom">${row.target_name ?? html`<span class="muted">—</span>`}</td>
<td data-label="Details">${detailText(row.detail)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

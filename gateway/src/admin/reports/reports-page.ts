// The Reports page: every open report, oldest first, with what it is about (the message and the
// five messages either side, the group, the reported student, the reporter) and one form to
// resolve it.
import { html, type SafeHtml } from '../html.ts';
import { plural } from '../layout.ts';
import { formatTime } from '../times.ts';
import { BAN_DURATIONS } from '../users/users.ts';
import type { OpenReport, ReportMessage } from './reports.ts';

function who(handle: string | null | undefined, id: string | null | undefined): string {
  return handle ? `@${handle}` : id ? `a student without a handle (${id.slice(0, 8)})` : 'a deleted account';
}

function messageItem(message: ReportMessage, reported: boolean): SafeHtml {
  const body = message.deleted_at ? html`<em class="muted">Message removed</em>` : html`${message.content ?? ''}`;
  return html`<li${reported ? html` class="reported"` : ''}><span class="muted">${formatTime(message.created_at)} · ${who(message.sender_handle, message.sender_id)}</span>${reported ? html` <strong>(reported)</strong>` : ''}<br>${body}</li>`;
}

function subject(item: OpenReport): string {
  if (item.report.target_type === 'message')
    return `A message by ${who(item.message?.sender_handle, item.message?.sender_id)}`;
  if (item.report.target_type === 'user')
    return `The student ${who(item.reported_user?.handle, item.reported_user?.id)}`;
  return `The group ${item.group?.name ?? 'that no longer exists'}`;
}

function resolveForm(item: OpenReport, index: number): SafeHtml {
  const id = item.report.id;
  const onMessage = item.report.target_type === 'message';
  const onGroup = item.report.target_type === 'group';
  return html`<form method="post" action="/__admin/reports/${id}/resolve" class="stack">
<fieldset><legend>Resolve report ${index + 1}</legend>
  <label class="check"><input type="radio" name="resolution" value="dismiss" required> <span>Dismiss: nothing breaks the rules</span></label>
  ${onMessage && item.message && !item.message.deleted_at ? html`<label class="check"><input type="radio" name="resolution" value="delete_message"> <span>Delete the message</span></label>` : ''}
  ${onMessage ? html`<label class="check"><input type="radio" name="resolution" value="remove_member"> <span>Remove ${who(item.message?.sender_handle, item.message?.sender_id)} from ${item.group?.name ?? 'the group'}</span></label>` : ''}
  ${
    onGroup
      ? ''
      : html`<label class="check"><input type="radio" name="resolution" value="ban"> <span>Ban the student</span></label>
  <label>Ban for <select name="ban_for">${Object.entries(BAN_DURATIONS).map(
    ([value, label]) => html`<option value="${value}"${value === '24h' ? html` selected` : ''}>${label}</option>`,
  )}</select></label>`
  }
  <label>Note <span class="hint">Optional; kept with the resolution in the audit log.</span>
    <textarea name="note" maxlength="2000" rows="2"></textarea></label>
</fieldset>
<div class="actions"><button class="primary" type="submit">Resolve report ${index + 1}</button></div>
</form>`;
}

export function reportsBody(reports: OpenReport[], notice?: string): SafeHtml {
  return html`<h1>Reports</h1>
${notice ? html`<p class="banner banner-ok" role="status">${notice}</p>` : ''}
<p>${reports.length === 0 ? 'No report is waiting.' : `${plural(reports.length, 'open report')}, the longest-waiting first.`} Every resolution is kept in the <a href="/__admin/audit">audit log</a>, and the reporter sees that the report was handled.</p>
${reports.map(
  (item, index) => html`<section class="report" aria-labelledby="report-${item.report.id}">
<h2 id="report-${item.report.id}">${index + 1}. ${subject(item)}</h2>
<dl class="facts">
  <dt>Reported</dt><dd>${formatTime(item.report.created_at)} by ${who(item.reporter.handle, item.reporter.id)}</dd>
  <dt>Reason</dt><dd>${item.report.reason ?? html`<span class="muted">none given</span>`}</dd>
  ${item.group ? html`<dt>Group</dt><dd>${item.group.name}</dd>` : ''}
</dl>
${
  item.message
    ? html`<h3>In the chat</h3><ol class="chat-context">${item.before.map((message) => messageItem(message, false))}${messageItem(item.message, true)}${item.after.map((message) => messageItem(message, false))}</ol>`
    : item.report.target_type === 'message'
      ? html`<p class="muted">The message no longer exists.</p>`
      : ''
}
${resolveForm(item, index)}
</section>`,
)}`;
}

// The sessions page: find a student by e-mail, handle or id; the student's study sessions newest
// first (start, minutes, subject, answer counts, voided or not); a void form with a required
// reason on each session still counted.
import { html, type SafeHtml } from '../html.ts';
import { plural } from '../layout.ts';
import { studentName, subjectName } from '../people.ts';
import { formatTime } from '../times.ts';
import { SESSION_PAGE_LIMIT, type Student, type StudySession } from './study-sessions.ts';

export interface SessionsView {
  /** What the admin typed, kept in the search box. */
  account: string;
  student?: Student | undefined;
  sessions?: StudySession[] | undefined;
  /** Account ids to e-mails, to name an admin who voided with her own account. */
  emails?: ReadonlyMap<string, string | null>;
  notice?: string | undefined;
}

function searchForm(account: string): SafeHtml {
  return html`<form class="stack" method="get" action="/__admin/sessions" role="search">
  <label>Student <span class="hint">an e-mail address, a handle or an account id</span>
    <input type="text" name="account" value="${account}" required autocomplete="off"></label>
  <div class="actions"><button class="primary" type="submit">Show sessions</button></div>
</form>`;
}

/** "the 45-minute session of 2026-11-27": what a void form's controls are named after. */
function sessionLabel(session: StudySession): string {
  return `the ${session.minutes}-minute session of ${session.study_day}`;
}

function voidForm(session: StudySession, account: string): SafeHtml {
  const label = sessionLabel(session);
  return html`<form method="post" action="/__admin/sessions/void" class="stack">
  <input type="hidden" name="session_id" value="${session.id}"><input type="hidden" name="account" value="${account}">
  <label>Reason for voiding ${label} <span class="hint">1 to 500 characters; the student sees it</span>
    <input type="text" name="reason" maxlength="500" required></label>
  <button class="danger" type="submit">Void ${label}</button></form>`;
}

function sessionRow(session: StudySession, account: string, emails: ReadonlyMap<string, string | null>): SafeHtml {
  const subject = [session.subject_name, session.task_title].filter(Boolean).join(' · ');
  const voided = session.voided_at !== null;
  // One element per cell: on a phone the table stacks into label / value rows (table.stack).
  return html`<tr${voided ? html` class="row-bad"` : ''}><td data-label="Start"><div>${formatTime(session.started_at)}<br><span class="muted">study day ${session.study_day}</span></div></td>
<td class="num" data-label="Minutes">${session.minutes}</td><td data-label="Subject">${subject || html`<span class="muted">none</span>`}</td>
<td class="num" data-label="Answers">${session.correct} / ${session.incorrect} / ${session.skipped}</td>
<td data-label="State"><div>${
    voided
      ? html`<span class="status-bad">Voided</span> ${formatTime(session.voided_at)} by ${session.voided_by ? subjectName(session.voided_by, emails) : 'someone unknown'}: ${session.void_reason ?? ''}`
      : html`<span class="status-ok">Counted</span>`
  }</div></td>
<td data-label="Void">${voided ? html`<span class="muted">Counts nowhere</span>` : voidForm(session, account)}</td></tr>`;
}

function studentSection(
  student: Student,
  sessions: StudySession[],
  account: string,
  emails: ReadonlyMap<string, string | null>,
): SafeHtml {
  const counted = sessions.filter((session) => session.voided_at === null);
  const minutes = counted.reduce((sum, session) => sum + session.minutes, 0);
  const name = [student.email, student.handle ? `@${student.handle}` : null].filter(Boolean).join(' · ');
  return html`<h2>${name || 'unknown account'} <span class="muted mono">${student.userId}</span></h2>
<p class="muted">${plural(sessions.length, 'session')} listed, ${plural(counted.length, 'counted session')} (${plural(minutes, 'minute')})${sessions.length >= SESSION_PAGE_LIMIT ? html` · only the newest ${SESSION_PAGE_LIMIT} are listed` : ''}.
A void keeps the session and removes it from this student's daily statistics, totals, streaks and every leaderboard at once; it cannot be undone here.</p>
${
  sessions.length === 0
    ? html`<p class="muted">${studentName(student)} has recorded no study session.</p>`
    : html`<div class="scroll"><table class="stack" aria-label="Study sessions of ${studentName(student)}">
<thead><tr><th scope="col">Start</th><th scope="col" class="num">Minutes</th><th scope="col">Subject</th><th scope="col" class="num">Correct / incorrect / skipped</th><th scope="col">State</th><th scope="col">Void</th></tr></thead>
<tbody>${sessions.map((session) => sessionRow(session, account, emails))}</tbody></table></div>`
}`;
}

export function sessionsBody(view: SessionsView): SafeHtml {
  return html`<h1>Study sessions</h1>
<p>A student's recorded study sessions, newest first. Void one that should not count (a timer left running, a test, a session that did not happen); the reason is required, and the student sees it.</p>
${view.notice ? html`<p class="banner banner-ok" role="status">${view.notice}</p>` : ''}
${searchForm(view.account)}
${view.student && view.sessions ? studentSection(view.student, view.sessions, view.account, view.emails ?? new Map()) : ''}`;
}

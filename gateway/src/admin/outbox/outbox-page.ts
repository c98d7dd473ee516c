// The outbox page: one row per kept mail, newest first: to, subject, when, the link.
import { html, type SafeHtml } from '../html.ts';
import { formatTime } from '../times.ts';

export interface OutboxMessage {
  to: string;
  subject: string;
  link: string | null;
  created_at: string;
}

export function outboxBody(view: { messages: OutboxMessage[] | undefined; smtp: boolean }): SafeHtml {
  const intro = html`<h1>Outbox</h1>
<p>Mail that localbase's auth would send (password recovery, magic links, e-mail changes, confirmation codes). Without SMTP_URL it is kept here for 7 days, at most the newest 500, instead of being sent. Each link signs its holder in once: pass it on only to the person it was meant for.</p>`;
  if (view.messages === undefined)
    return html`${intro}<p class="muted">This server fronts a hosted backend: its mail is sent by that project, and there is no local outbox.</p>`;
  const smtpNote = view.smtp ? html`<p class="muted">SMTP_URL is set: new mail is sent, not kept here.</p>` : '';
  if (view.messages.length === 0) return html`${intro}${smtpNote}<p class="muted">No mail yet.</p>`;
  return html`${intro}${smtpNote}
<div class="scroll"><table class="stack">
<thead><tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">When</th><th scope="col">Link</th></tr></thead>
<tbody>${view.messages.map(
    (message) =>
      html`<tr><td data-label="To">${message.to}</td><td data-label="Subject">${message.subject}</td><td data-label="When">${formatTime(message.created_at)}</td><td data-label="Link">${message.link ? html`<code>${message.link}</code>` : html`<span class="muted">code only</span>`}</td></tr>`,
  )}</tbody></table></div>`;
}

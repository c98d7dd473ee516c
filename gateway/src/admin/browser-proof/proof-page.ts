// The browser proof page, in two states: a run (this run's three checks, filled in by the page's
// script as they run), or the last run's result with a "Run again" button, so looking at the page
// does not run it again. Below either, the reports received since the server started.
import { html, jsonForScript, type SafeHtml } from '../html.ts';
import { shortUserAgent } from '../layout.ts';
import { formatTime, timeAgo } from '../times.ts';
import type { ProofReport } from './proof-runs.ts';

export const CHECK_LABELS: Record<ProofReport['checks'][number]['name'], string> = {
  service_worker: 'Service worker registers and controls the page',
  indexeddb: 'IndexedDB keeps a value across a reopen',
  login: 'Login round trip with a temporary account',
};

export interface ProofPageView {
  /** The run this page starts; undefined when it shows the last run instead. */
  run?: { token: string; runId: string; expiresAt: string } | undefined;
  reports: ProofReport[];
  nowMs: number;
}

const INTRO = html`<p>This page checks, in this browser, what the app needs from it. It registers the app's service worker, writes to IndexedDB,
and signs in with a temporary account that the server creates for the run and deletes when the report arrives (or after 10 minutes).</p>`;

const RUN_AGAIN = html`<form class="actions" method="post" action="/__admin/browser-proof"><button type="submit">Run again</button>
<span class="muted">Runs the three checks anew in this browser.</span></form>`;

function runSection(run: NonNullable<ProofPageView['run']>): SafeHtml {
  const data = {
    run_token: run.token,
    run_id: run.runId,
    expires_at: run.expiresAt,
    account_url: '/__admin/browser-proof/account',
    result_url: '/__admin/browser-proof-result',
  };
  return html`<p class="muted">Run ${run.runId}, valid until ${formatTime(run.expiresAt)}.</p>
<noscript><p class="banner banner-bad">The browser proof runs in JavaScript; enable it for this page.</p></noscript>
<div class="scroll"><table class="stack" aria-label="This run">
<thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>
<tbody>${Object.entries(CHECK_LABELS).map(([name, label]) => html`<tr data-check="${name}"><td data-label="Check">${label}</td><td data-label="Status" class="state muted">waiting</td><td data-label="Detail" class="detail"></td></tr>`)}</tbody>
</table></div>
<p id="proof-status" role="status" aria-live="polite">Waiting to start…</p>
<script type="application/json" id="proof-data">${jsonForScript(data)}</script>`;
}

function lastRunSection(last: ProofReport, nowMs: number): SafeHtml {
  return html`<p role="status">Last run ${timeAgo(last.received_at, nowMs)} (${formatTime(last.received_at)}) in ${shortUserAgent(last.user_agent)}: ${
    last.ok ? html`<span class="status-ok">✓ passed</span>` : html`<span class="status-bad">✗ failed</span>`
  }.</p>
<div class="scroll"><table class="stack" aria-label="The last run">
<thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>
<tbody>${last.checks.map(
    (item) => html`<tr${item.ok ? '' : html` class="row-bad"`}><td data-label="Check">${CHECK_LABELS[item.name]}</td>
<td data-label="Status">${item.ok ? html`<span class="status-ok">✓ pass</span>` : html`<span class="status-bad">✗ fail</span>`}</td><td data-label="Detail">${item.detail}</td></tr>`,
  )}</tbody></table></div>
${RUN_AGAIN}`;
}

export function proofBody(view: ProofPageView): SafeHtml {
  const last = view.reports[0];
  return html`<h1>Browser proof</h1>
${INTRO}
${view.run ? runSection(view.run) : last ? lastRunSection(last, view.nowMs) : RUN_AGAIN}
<h2>Reports since the server started</h2>
${
  view.reports.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<div class="scroll"><table class="stack" aria-label="Reports since the server started">
<thead><tr><th scope="col">Received</th><th scope="col">Run</th><th scope="col">Result</th><th scope="col">Checks</th><th scope="col">Browser</th></tr></thead>
<tbody>${view.reports.map(
        (
          report,
        ) => html`<tr${report.ok ? '' : html` class="row-bad"`}><td data-label="Received">${formatTime(report.received_at)}</td><td data-label="Run"><code class="id">${report.run_id}</code></td>
<td data-label="Result">${report.ok ? html`<span class="status-ok">✓ passed</span>` : html`<span class="status-bad">✗ failed</span>`}</td>
<td data-label="Checks"><div>${report.checks.map((item) => html`<div>${item.ok ? '✓' : '✗'} ${CHECK_LABELS[item.name]}: ${item.detail}</div>`)}</div></td>
<td data-label="Browser" class="muted" title="${report.user_agent}">${shortUserAgent(report.user_agent)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

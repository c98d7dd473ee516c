// The browser proof page: this run's three checks (filled in by the page's script as they run),
// and the reports received since the server started.
import { html, jsonForScript, type SafeHtml } from '../html.ts';
import { shortUserAgent } from '../layout.ts';
import { formatTime } from '../times.ts';
import type { ProofReport } from './proof-runs.ts';

export const CHECK_LABELS: Record<ProofReport['checks'][number]['name'], string> = {
  service_worker: 'Service worker registers and controls the page',
  indexeddb: 'IndexedDB keeps a value across a reopen',
  login: 'Login round trip with a temporary account',
};

export interface ProofPageView {
  run: { token: string; runId: string; expiresAt: string };
  reports: ProofReport[];
}

export function proofBody(view: ProofPageView): SafeHtml {
  const data = {
    run_token: view.run.token,
    run_id: view.run.runId,
    expires_at: view.run.expiresAt,
    account_url: '/__admin/browser-proof/account',
    result_url: '/__admin/browser-proof-result',
  };
  return html`<h1>Browser proof</h1>
<p>This page checks, in this browser, what the app needs from it. It registers the app's service worker, writes to IndexedDB,
and signs in with a temporary account that the server creates for this run and deletes when the report arrives (or after 10 minutes).</p>
<p class="muted">Run ${view.run.runId}, valid until ${formatTime(view.run.expiresAt)}. <a href="/__admin/browser-proof">Start a new run</a></p>
<noscript><p class="banner banner-bad">The browser proof runs in JavaScript; enable it for this page.</p></noscript>
<div class="scroll"><table class="stack">
<thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>
<tbody>${Object.entries(CHECK_LABELS).map(([name, label]) => html`<tr data-check="${name}"><td data-label="Check">${label}</td><td data-label="Status" class="state muted">waiting</td><td data-label="Detail" class="detail"></td></tr>`)}</tbody>
</table></div>
<p id="proof-status" role="status" aria-live="polite">Waiting to start…</p>
<script type="application/json" id="proof-data">${jsonForScript(data)}</script>
<h2>Reports since the server started</h2>
${
  view.reports.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Received</th><th scope="col">Run</th><th scope="col">Result</th><th scope="col">Checks</th><th scope="col">Browser</th></tr></thead>
<tbody>${view.reports.map(
        (
          report,
        ) => html`<tr${report.ok ? '' : html` class="row-bad"`}><td>${formatTime(report.received_at)}</td><td><code class="id">${report.run_id}</code></td>
<td>${report.ok ? html`<span class="status-ok">✓ passed</span>` : html`<span class="status-bad">✗ failed</span>`}</td>
<td>${report.checks.map((item) => html`<div>${item.ok ? '✓' : '✗'} ${CHECK_LABELS[item.name]}: ${item.detail}</div>`)}</td>
<td class="muted" title="${report.user_agent}">${shortUserAgent(report.user_agent)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

// The verify page: a summary line, when the checks ran and a "Run again" button, the failing checks
// first (each with its fix), the browser proof's last run, then every category as a table
// (category, check, status, detail, fix). Categories that passed are folded.
import { html, type SafeHtml } from '../html.ts';
import { plural, shortUserAgent } from '../layout.ts';
import { formatTime, timeAgo } from '../times.ts';
import type { Check } from './checks.ts';
import type { VerifyReport } from './run-verify.ts';

function status(ok: boolean): SafeHtml {
  return ok ? html`<span class="status-ok">✓ pass</span>` : html`<span class="status-bad">✗ fail</span>`;
}

function fixCell(item: Check): SafeHtml | string {
  if (!item.fix) return '';
  return item.fix.href ? html`<a href="${item.fix.href}">${item.fix.text}</a>` : html`${item.fix.text}`;
}

/** A check's row; the category column only where checks of several categories share a table. */
function row(item: Check, categoryName: string | undefined): SafeHtml {
  return html`<tr${item.ok ? '' : html` class="row-bad"`}>${categoryName !== undefined ? html`<td data-label="Category">${categoryName}</td>` : ''}<td data-label="Check">${item.name}</td><td data-label="Status">${status(item.ok)}</td><td data-label="Detail">${item.detail}</td><td data-label="Fix">${fixCell(item)}</td></tr>`;
}

const HEAD = html`<thead><tr><th scope="col">Category</th><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead>`;
const CATEGORY_HEAD = html`<thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead>`;

export function verifyBody(report: VerifyReport, nowMs: number): SafeHtml {
  const failing = report.categories.flatMap((category) =>
    category.checks.filter((item) => !item.ok).map((item) => ({ item, category: category.name })),
  );
  const proof = report.browser_proof.last_report;
  return html`<h1>Verify</h1>
<div class="summary-line">
  <p class="banner ${report.ok ? 'banner-ok' : 'banner-bad'}" role="status">${report.ok ? html`All ${report.counts.checks} checks pass.` : html`<strong>${plural(report.counts.failed, 'check')} failed</strong> of ${report.counts.checks}. Each says what to do.`}</p>
</div>
<p class="muted">Checked ${timeAgo(report.generated_at, nowMs)} (${formatTime(report.generated_at)}) in ${report.duration_ms} ms.</p>
<form class="actions" method="post" action="/__admin/verify">
  <button type="submit">Run again</button>
  <span class="muted">Runs all ${report.counts.checks} checks anew (it takes a few seconds) · <a href="/__admin/verify?format=json" type="application/json">JSON</a></span>
</form>
${
  failing.length
    ? html`<h2>To do</h2><div class="scroll"><table class="stack">${HEAD}<tbody>${failing.map(({ item, category }) => row(item, category))}</tbody></table></div>`
    : ''
}
<section aria-labelledby="proof-heading">
<h2 id="proof-heading">Browser proof</h2>
<p>${
    proof
      ? html`Last run ${timeAgo(proof.received_at, nowMs)} (${formatTime(proof.received_at)}): ${
          proof.ok
            ? html`<span class="status-ok">✓ all passed</span>`
            : html`<span class="status-bad">✗ ${proof.checks
                .filter((c) => !c.ok)
                .map((c) => c.name)
                .join(', ')} failed</span>`
        } in ${shortUserAgent(proof.user_agent)}. `
      : 'No browser proof has run since this server started. '
  }<a href="${report.browser_proof.page}">Open the browser proof</a> (it needs a real browser, so it is not part of the checks above).</p>
</section>
<h2>All checks</h2>
${report.categories.map(
  (category) => html`<details${category.ok ? '' : html` open`} id="${category.id}">
<summary><strong>${category.name}</strong> · ${category.ok ? html`<span class="status-ok">✓ ${plural(category.checks.length, 'check')} pass</span>` : html`<span class="status-bad">✗ ${category.checks.filter((item) => !item.ok).length} of ${category.checks.length} failed</span>`}</summary>
<div class="scroll"><table class="stack" aria-label="${category.name}">${CATEGORY_HEAD}<tbody>${category.checks.map((item) => row(item, undefined))}</tbody></table></div>
</details>`,
)}`;
}

// The storage page: per user and bucket, how many objects and bytes, and how many are prunable by
// the rule stated at the top; the prunable objects themselves; the preview and apply forms.
import { html, type SafeHtml } from '../html.ts';
import { formatBytes, plural } from '../layout.ts';
import { formatTime } from '../times.ts';
import type { CleanupPreview } from './cleanup-previews.ts';
import { PRUNE_RULE } from './prunable.ts';
import type { StorageReport } from './storage-report.ts';

export function storageBody(report: StorageReport): SafeHtml {
  const prunable = report.objects.filter((object) => object.prunable);
  return html`<h1>Storage</h1>
<p><strong>Prunable</strong> means: ${PRUNE_RULE}</p>
<p class="muted">${plural(report.totals.objects, 'object')}, ${formatBytes(report.totals.bytes)} · prunable: ${plural(report.totals.prunable_objects, 'object')}, ${formatBytes(report.totals.prunable_bytes)}</p>
<div class="scroll"><table>
<thead><tr><th scope="col">User</th><th scope="col">Bucket</th><th scope="col" class="num">Objects</th><th scope="col" class="num">Size</th><th scope="col" class="num">Prunable</th><th scope="col" class="num">Prunable size</th></tr></thead>
<tbody>${report.per_user.map(
    (row) =>
      html`<tr><td>${row.email ?? html`<code>${row.user}</code>`}</td><td>${row.bucket}</td><td class="num">${row.objects}</td><td class="num">${formatBytes(row.bytes)}</td><td class="num">${row.prunable_objects}</td><td class="num">${formatBytes(row.prunable_bytes)}</td></tr>`,
  )}</tbody></table></div>
${report.per_user.length === 0 ? html`<p class="muted">Nothing is stored yet.</p>` : ''}
<h2>Prunable objects</h2>
${
  prunable.length === 0
    ? html`<p class="muted">Nothing is prunable.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Bucket</th><th scope="col">Object</th><th scope="col" class="num">Size</th><th scope="col">Stored</th><th scope="col">Why</th></tr></thead>
<tbody>${prunable.map((object) => html`<tr><td>${object.bucket}</td><td><code>${object.name}</code></td><td class="num">${formatBytes(object.bytes)}</td><td>${formatTime(object.created_at)}</td><td>${object.prunable}</td></tr>`)}</tbody></table></div>
<form method="post" action="/__admin/storage/cleanup-preview"><button type="submit">Preview the cleanup</button> <span class="muted">Lists exactly what would be deleted; deletes nothing.</span></form>`
}`;
}

export function previewBody(preview: CleanupPreview): SafeHtml {
  const count = preview.objects.length;
  const these = count === 1 ? 'this object' : `these ${count} objects`;
  if (count === 0)
    return html`<h1>Cleanup preview</h1><p>Nothing is prunable, so a cleanup would delete nothing.</p><p><a href="/__admin/storage">Back to storage</a></p>`;
  return html`<h1>Cleanup preview</h1>
<p>Applying this preview deletes exactly ${these} (${formatBytes(preview.bytes)}), no others:
an object stored or replaced after this preview is left alone. The preview is valid until ${formatTime(preview.expires_at)}.</p>
<div class="scroll"><table>
<thead><tr><th scope="col">Bucket</th><th scope="col">Object</th><th scope="col" class="num">Size</th><th scope="col">Why</th></tr></thead>
<tbody>${preview.objects.map((object) => html`<tr><td>${object.bucket}</td><td><code>${object.name}</code></td><td class="num">${formatBytes(object.bytes)}</td><td>${object.reason}</td></tr>`)}</tbody></table></div>
<form class="stack" method="post" action="/__admin/storage/cleanup-apply">
  <input type="hidden" name="preview_id" value="${preview.preview_id}">
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>Delete ${these} for good. Storage has no undo.</span></label>
  <div class="actions"><button class="danger" type="submit">Delete ${plural(count, 'object')} (${formatBytes(preview.bytes)})</button> <a href="/__admin/storage">Cancel</a></div>
</form>`;
}

export function appliedBody(result: {
  deleted: Array<{ bucket: string; name: string }>;
  skipped: Array<{ bucket: string; name: string; reason: string }>;
  bytes: number;
}): SafeHtml {
  return html`<h1>Cleanup done</h1>
<p class="banner banner-ok" role="status">Deleted ${plural(result.deleted.length, 'object')} (${formatBytes(result.bytes)}).${result.skipped.length ? ` Left ${result.skipped.length} alone.` : ''}</p>
${result.skipped.length ? html`<h2>Left alone</h2><ul>${result.skipped.map((item) => html`<li><code>${item.bucket}/${item.name}</code>: ${item.reason}</li>`)}</ul>` : ''}
<p><a href="/__admin/storage">Back to storage</a></p>`;
}

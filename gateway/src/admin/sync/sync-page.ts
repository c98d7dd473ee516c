// The sync page: per user, every backup candidate best first, what /__auth/backup/best picks and
// why, and the repair (dry run first); below, the archived revisions with their Restore button.
import { html, type SafeHtml } from '../html.ts';
import { formatBytes, plural } from '../layout.ts';
import { subjectName } from '../people.ts';
import { formatTime } from '../times.ts';
import type { BackupCandidate, UserBackups } from './backup-candidates.ts';
import type { ArchivedBackup, RepairResult } from './repair.ts';

function marks(user: UserBackups, candidate: BackupCandidate): string {
  return [
    candidate === user.winner ? 'winner' : null,
    candidate === user.best ? 'best (rows)' : null,
    candidate === user.current ? 'current' : null,
  ]
    .filter(Boolean)
    .join(', ');
}

function repairForms(user: UserBackups): SafeHtml {
  if (!user.repair_needed) return html``;
  return html`<div class="actions">
<form class="inline" method="post" action="/__admin/sync/repair-user-backup">
  <input type="hidden" name="user_id" value="${user.user_id}"><input type="hidden" name="dry_run" value="true">
  <button type="submit">Preview the repair (dry run)</button>
</form></div>`;
}

function userSection(user: UserBackups): SafeHtml {
  return html`<section aria-labelledby="user-${user.user_id}">
<h2 id="user-${user.user_id}">${user.email ?? 'unknown account'} <span class="muted mono">${user.user_id}</span></h2>
<p><a href="/__admin/sessions?account=${user.user_id}">Study sessions of ${user.email ?? 'this student'}</a></p>
<p${user.repair_needed ? html` class="banner banner-bad"` : ''}>${user.explanation}</p>
<div class="scroll"><table>
<thead><tr><th scope="col">Kind</th><th scope="col">Backup</th><th scope="col">Source</th><th scope="col" class="num">Richness</th><th scope="col" class="num">Size</th><th scope="col">Date</th><th scope="col">Role</th></tr></thead>
<tbody>${user.candidates.map(
    (
      candidate,
    ) => html`<tr><td>${candidate.kind}</td><td><code>${candidate.kind === 'row' ? candidate.id : candidate.id}</code></td><td>${candidate.source ?? ''}</td>
<td class="num">${candidate.richness ?? html`<span class="status-bad">${candidate.problem ?? 'unknown'}</span>`}</td><td class="num">${formatBytes(candidate.bytes)}</td><td>${formatTime(candidate.created_at)}</td><td>${marks(user, candidate)}</td></tr>`,
  )}</tbody></table></div>
${repairForms(user)}
</section>`;
}

export function syncBody(view: { users: UserBackups[]; archive: ArchivedBackup[]; filtered: boolean }): SafeHtml {
  const needing = view.users.filter((user) => user.repair_needed);
  return html`<h1>Sync</h1>
<p>Every stored backup of each user, best first, by the rule <code>/__auth/backup/best</code> uses: the highest richness
(<code>public.backup_richness</code>: items of top-level arrays plus entries of top-level objects), then the newest.
Rows are the backups the app stores; snapshot files are the copies a snapshot also leaves in the <code>backups</code> bucket.
The current backup is the newest row, what <code>/__auth/backup/latest</code> returns.</p>
<p class="muted">${plural(view.users.length, 'user')} with backups${needing.length ? html` · <strong class="status-bad">${needing.length} whose current backup is not the best</strong>` : ' · all current backups are the best'}${view.filtered ? html` · <a href="/__admin/sync">Show all users</a>` : ''}</p>
${view.users.length === 0 ? html`<p class="muted">No user has a backup yet.</p>` : view.users.map(userSection)}
<h2>Archived backups</h2>
${
  view.archive.length === 0
    ? html`<p class="muted">None. A repair archives the backup it replaces here.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Archived</th><th scope="col">User</th><th scope="col">Backup</th><th scope="col">From</th><th scope="col">Reason</th><th scope="col">Restore</th></tr></thead>
<tbody>${view.archive.map(
        (
          item,
        ) => html`<tr><td>${formatTime(item.archived_at)} by ${subjectName(item.archived_by)}</td><td><code>${item.user_id}</code></td><td><code>${item.backup_id}</code></td><td>${formatTime(item.backup_created_at)}</td><td>${item.reason}</td>
<td><form method="post" action="/__admin/sync/restore-archived-backup" class="stack">
  <input type="hidden" name="archive_id" value="${item.id}">
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>Put it back and remove the backup the repair wrote</span></label>
  <button class="danger" type="submit">Restore this backup</button></form></td></tr>`,
      )}</tbody></table></div>`
}`;
}

export function repairResultBody(result: RepairResult): SafeHtml {
  const title = result.dry_run
    ? 'Repair preview (nothing written)'
    : result.changes.length
      ? 'Repaired'
      : 'Nothing to repair';
  return html`<h1>${title}</h1>
<p>${result.explanation}</p>
${
  result.changes.length
    ? html`<h2>${result.dry_run ? 'What a repair would do' : 'What was done'}</h2><ol>${result.changes.map((change) => html`<li>${change.description}</li>`)}</ol>`
    : ''
}
${
  result.dry_run && result.changes.length
    ? html`<form class="stack" method="post" action="/__admin/sync/repair-user-backup">
  <input type="hidden" name="user_id" value="${result.user_id}"><input type="hidden" name="dry_run" value="false">
  <label class="check"><input type="checkbox" name="confirm" value="true" required> <span>Make it so. The replaced backup is archived and can be restored from the sync page.</span></label>
  <div class="actions"><button class="danger" type="submit">Repair: make the winning backup current</button></div>
</form>`
    : ''
}
${result.restore ? html`<p class="banner banner-ok">Archived as <code>${result.restore.body.archive_id}</code>. ${result.restore.text}</p>` : ''}
<p><a href="/__admin/sync?user_id=${result.user_id}">Back to this user</a> · <a href="/__admin/sync">All users</a></p>`;
}

// What a backup holds, shown before it replaces anything.
import { formatCount, minutesText } from '../../lib/format.ts';
import type { BackupSummaryCounts } from '../../lib/backup-payload.ts';

export function BackupPreview({
  counts,
  when,
  source,
}: {
  counts: BackupSummaryCounts;
  when?: string;
  source?: string;
}) {
  return (
    <dl class="facts">
      {when && (
        <>
          <dt>Saved</dt>
          <dd>
            {when}
            {source ? ` (${source})` : ''}
          </dd>
        </>
      )}
      <dt>Sessions</dt>
      <dd>
        {formatCount(counts.sessions)}
        {counts.sessions > 0 ? `, ${minutesText(counts.minutes)} in total` : ''}
      </dd>
      {counts.firstDay && counts.lastDay && (
        <>
          <dt>Days</dt>
          <dd>{counts.firstDay === counts.lastDay ? counts.firstDay : `${counts.firstDay} to ${counts.lastDay}`}</dd>
        </>
      )}
      <dt>Subjects</dt>
      <dd>{formatCount(counts.subjects)}</dd>
      <dt>Tasks</dt>
      <dd>{formatCount(counts.tasks)}</dd>
    </dl>
  );
}

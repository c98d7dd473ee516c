// "Your reports" on the group page: what the student reported here (a message of the chat, a
// member, the group) and whether the people who run the server have handled it, with the date.
// Read when the page opens, after the report dialog closes, and when the chat shows a reported
// message removed (its text goes at once; the read tells whether the report was handled):
// community_reports is not in the realtime publication, so nothing else is live. How a report was handled, and by whom, is not hers to read.
// Loading shows nothing: most students have no report, and a placeholder that then vanishes would
// make the chat jump.
import { useEffect } from 'preact/hooks';
import type { BoardMember } from '#contracts/community-answers.ts';
import { nameOf } from '../../components/community/Avatar.tsx';
import { useLoad } from '../../components/community/useLoad.ts';
import { TitledSection } from '../../components/TitledSection.tsx';
import { myReportsIn, type MyReport } from '../../lib/community/reports.ts';

const EXCERPT = 80;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1).trimEnd()}…` : flat;
}

function dayText(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

function Subject({ report, groupName, byId }: { report: MyReport; groupName: string; byId: Map<string, BoardMember> }) {
  if (report.message) {
    const sender = report.message.senderId ? byId.get(report.message.senderId) : undefined;
    const who = sender ? nameOf(sender) : report.message.senderId ? 'a former member' : 'a deleted account';
    return (
      <p class="my-report-subject">
        A message by {who}:{' '}
        {report.message.removed ? (
          <em class="muted">Message removed</em>
        ) : (
          <q class="my-report-excerpt">{excerpt(report.message.content)}</q>
        )}
      </p>
    );
  }
  if (report.targetType === 'group') return <p class="my-report-subject">The group {groupName}</p>;
  const member = byId.get(report.targetId);
  return <p class="my-report-subject">{member ? nameOf(member) : 'A member'}</p>;
}

export function MyReports({
  groupId,
  groupName,
  members,
  removed,
  version,
}: {
  groupId: string;
  groupName: string;
  members: readonly BoardMember[];
  /** The chat's removed messages: a reported one among them shows as removed without a read. */
  removed: ReadonlySet<string>;
  /** Changes when the student may have sent a report: read them again. */
  version: number;
}) {
  const loaded = useLoad(() => myReportsIn(groupId), [groupId]);
  // Read again in place (what is shown stays until the answer), so the list does not blink.
  useEffect(() => {
    if (version > 0) void loaded.reload();
  }, [version]);
  // A reported message the chat saw removed: read again, to learn whether that handled the report.
  const reportedRemoved = (loaded.data ?? [])
    .filter((report) => report.message && !report.message.removed && removed.has(report.targetId))
    .map((report) => report.id)
    .join(',');
  useEffect(() => {
    if (reportedRemoved) void loaded.reload();
  }, [reportedRemoved]);
  const byId = new Map(members.map((member) => [member.userId, member]));
  // A report on a student names no group: keep those on someone in this one.
  const shown = (loaded.data ?? [])
    .filter((report) => report.targetType !== 'user' || byId.has(report.targetId))
    .map((report) =>
      report.message && removed.has(report.targetId)
        ? { ...report, message: { ...report.message, content: '', removed: true } }
        : report,
    );

  if (loaded.error && !loaded.data)
    return (
      <TitledSection class="card my-reports" titleId="my-reports-title" title="Your reports">
        <div class="row-between my-reports-error">
          <p class="muted">Your reports could not be checked just now.</p>
          <button type="button" class="button" onClick={() => void loaded.reload()}>
            Try again
          </button>
        </div>
      </TitledSection>
    );
  if (shown.length === 0) return null;
  return (
    <TitledSection
      class="card my-reports"
      titleId="my-reports-title"
      title="Your reports"
      aria-busy={loaded.loading || undefined}
    >
      <p class="muted my-reports-note">Only you see these. The people who run this server decide what happens.</p>
      <ul class="my-reports-list">
        {shown.map((report) => (
          <li key={report.id} class="my-report">
            <Subject report={report} groupName={groupName} byId={byId} />
            <p class="my-report-meta">
              <span class="muted">
                Sent <time dateTime={report.createdAt}>{dayText(report.createdAt)}</time>
              </span>
              {report.handled ? (
                <span class="my-report-status is-handled">
                  Handled
                  {report.resolvedAt && (
                    <>
                      {' '}
                      <time dateTime={report.resolvedAt}>{dayText(report.resolvedAt)}</time>
                    </>
                  )}
                </span>
              ) : (
                <span class="my-report-status">Open</span>
              )}
            </p>
          </li>
        ))}
      </ul>
    </TitledSection>
  );
}

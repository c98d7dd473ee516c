// Reporting a group, a member or a message: a reason in the student's words, sent to the server's
// admins (community_submit_report). The reporter alone can read their report back.
import { useEffect, useState } from 'preact/hooks';
import { BusyButton } from '../BusyButton.tsx';
import { Dialog } from '../Dialog.tsx';
import { submitReport, type ReportTarget } from '../../lib/community/groups.ts';
import { useCommunityAction } from '../../lib/community/use-community-action.ts';
import { FieldError } from '../FieldError.tsx';

export interface ReportSubject {
  type: ReportTarget;
  id: string;
  /** What the dialog names: "the group Night Shift", "Bo", "this message by Bo". */
  what: string;
}

export function ReportDialog({ subject, onClose }: { subject: ReportSubject | null; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, setError, run } = useCommunityAction();
  useEffect(() => {
    setReason('');
    setError(null);
    setSent(false);
  }, [subject?.id]);
  const send = async (event: Event) => {
    event.preventDefault();
    if (!subject) return;
    if (!reason.trim()) return setError('Say in a few words what is wrong.');
    if (await run(() => submitReport(subject.type, subject.id, reason.trim()))) setSent(true);
  };
  return (
    <Dialog
      open={subject !== null}
      title={sent ? 'Report sent' : `Report ${subject?.what ?? ''}`}
      onClose={onClose}
      actions={
        sent ? (
          <button type="button" class="button button-primary" onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button type="button" class="button" onClick={onClose}>
              Cancel
            </button>
            <BusyButton type="submit" form="report-form" class="button button-danger" busy={busy} busyLabel="Sending…">
              Send report
            </BusyButton>
          </>
        )
      }
    >
      {sent ? (
        <p role="status">Thank you. The people who run this server will look at it. Nobody else sees who reported.</p>
      ) : (
        <form id="report-form" class="stack" onSubmit={(event) => void send(event)} noValidate>
          <p class="muted">
            The server's admins read reports. {subject?.type === 'message' ? 'The message itself goes with it.' : ''}
          </p>
          <div class="field">
            <label class="field-label" for="report-reason">
              What is wrong?
            </label>
            <textarea
              id="report-reason"
              class="input textarea"
              rows={4}
              maxLength={2000}
              value={reason}
              onInput={(event) => setReason(event.currentTarget.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'report-error' : undefined}
            />
            <FieldError id="report-error" message={error} />
          </div>
        </form>
      )}
    </Dialog>
  );
}

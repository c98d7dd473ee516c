// Shown once on a device with no data when the account has a backup: what it holds, and the
// choice to restore it or start empty.
import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { describeError } from '../../lib/api.ts';
import { dateTime } from '../../lib/format.ts';
import { restoreOffer } from '../../state/restore-offer.ts';
import { BackupPreview } from './BackupPreview.tsx';
import { restoreBestBackup } from './restore.ts';

export default function RestoreOfferDialog() {
  const offer = restoreOffer.offered.value;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!offer) return null;
  const restore = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await restoreBestBackup();
      restoreOffer.reset();
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title="Restore your backup on this device?"
      onClose={() => void restoreOffer.decline()}
      actions={
        <>
          <button type="button" class="button" onClick={() => void restoreOffer.decline()} disabled={busy}>
            Start empty
          </button>
          <button type="button" class="button button-primary" onClick={() => void restore()} disabled={busy}>
            {busy ? 'Restoring…' : 'Restore backup'}
          </button>
        </>
      }
    >
      <p>This device has no studyhall data yet. Your account has a backup:</p>
      <BackupPreview counts={offer.counts} when={dateTime(offer.createdAt)} source={offer.source} />
      <p class="small muted">You can also restore it later from Backups.</p>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </Dialog>
  );
}

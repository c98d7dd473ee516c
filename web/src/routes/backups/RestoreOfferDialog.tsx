// Shown once on a device that held no data when it opened, when a stored backup holds records this
// device still lacks after the history came from the server: the newest backup first, then the
// one holding the most records, each with what it holds and what it would add. Adding replaces
// nothing; "Not now" leaves the device as it is (Backups can restore one later).
import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { describeError } from '../../lib/api.ts';
import { dateTime, plural } from '../../lib/format.ts';
import { restoreOffer, type OfferedBackup } from '../../state/restore-offer.ts';
import { BackupPreview } from './BackupPreview.tsx';
import { addFromBackup } from './restore.ts';
import '../../styles/backups.css';

const TITLES: Record<OfferedBackup['role'], string> = {
  newest: 'Your newest backup',
  richest: 'The backup with the most records',
};

const ACTIONS: Record<OfferedBackup['role'], string> = {
  newest: 'Add from the newest backup',
  richest: 'Add from the backup with the most records',
};

function addsText(adds: OfferedBackup['adds']): string | null {
  const parts = [
    adds.sessions > 0 ? plural(adds.sessions, 'session') : null,
    adds.subjects > 0 ? plural(adds.subjects, 'subject') : null,
    adds.tasks > 0 ? plural(adds.tasks, 'task') : null,
  ].filter((part): part is string => part !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

export default function RestoreOfferDialog() {
  const offers = restoreOffer.offered.value;
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (!offers) return null;
  const add = async (offer: OfferedBackup) => {
    setBusy(offer.id);
    setProblem(null);
    try {
      await addFromBackup(offer.payload);
      restoreOffer.reset();
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Dialog
      open
      wide
      title="Restore your backup on this device?"
      onClose={() => void restoreOffer.decline()}
      actions={
        <button type="button" class="button" onClick={() => void restoreOffer.decline()} disabled={busy !== null}>
          Not now
        </button>
      }
    >
      <p>
        Your sessions, tasks, subjects and settings on the server are on this device already. A backup holds records the
        server does not have; adding them replaces nothing here.
      </p>
      <ul class="restore-offers">
        {offers.map((offer) => {
          const adds = addsText(offer.adds);
          return (
            <li key={offer.id} class="restore-offer" aria-labelledby={`offer-${offer.id}`}>
              <h3 id={`offer-${offer.id}`} class="restore-offer-title">
                {TITLES[offer.role]}
              </h3>
              <BackupPreview counts={offer.counts} when={dateTime(offer.createdAt)} source={offer.source} />
              <p class={adds ? 'restore-offer-adds' : 'muted'}>
                {adds ? `Adds to this device: ${adds}.` : 'Holds nothing this device lacks.'}
              </p>
              {adds && (
                <button
                  type="button"
                  class={offer.role === 'newest' ? 'button button-primary' : 'button'}
                  onClick={() => void add(offer)}
                  disabled={busy !== null}
                >
                  {busy === offer.id ? 'Adding…' : ACTIONS[offer.role]}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p class="small muted">You can also restore a backup later from Backups.</p>
      <FieldError message={problem} />
    </Dialog>
  );
}

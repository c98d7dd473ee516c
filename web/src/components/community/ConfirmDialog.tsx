// Asks once before something that cannot be undone, naming exactly what will happen; the action
// button says the action, and a failure is shown inside the dialog.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../Dialog.tsx';
import { describeCommunityError } from '../../lib/community/words.ts';

export interface Confirmation {
  title: string;
  body: ComponentChildren;
  action: string;
  danger?: boolean;
  run: () => Promise<void>;
}

export function ConfirmDialog({ confirmation, onClose }: { confirmation: Confirmation | null; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setError(null), [confirmation]);
  const go = async () => {
    if (!confirmation) return;
    setBusy(true);
    try {
      await confirmation.run();
      onClose();
    } catch (failure) {
      setError(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={confirmation !== null}
      title={confirmation?.title ?? ''}
      onClose={onClose}
      actions={
        <>
          <button type="button" class="button" onClick={onClose}>Cancel</button>
          <button type="button" class={`button ${confirmation?.danger ? 'button-danger' : 'button-primary'}`} disabled={busy} onClick={() => void go()}>
            {busy ? 'Working…' : confirmation?.action}
          </button>
        </>
      }
    >
      {confirmation?.body}
      {error && <div class="notice notice-error" role="alert"><p>{error}</p></div>}
    </Dialog>
  );
}

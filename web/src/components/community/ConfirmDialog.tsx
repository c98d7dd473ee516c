// Asks once before something that cannot be undone, naming exactly what will happen; the action
// button says the action, and a failure is shown inside the dialog.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { Dialog } from '../Dialog.tsx';
import { useCommunityAction } from '../../lib/community/use-community-action.ts';

export interface Confirmation {
  title: string;
  body: ComponentChildren;
  action: string;
  danger?: boolean;
  run: () => Promise<void>;
}

export function ConfirmDialog({ confirmation, onClose }: { confirmation: Confirmation | null; onClose: () => void }) {
  const { busy, error, setError, run } = useCommunityAction();
  useEffect(() => setError(null), [confirmation]);
  const go = async () => {
    if (confirmation && (await run(confirmation.run))) onClose();
  };
  return (
    <Dialog
      open={confirmation !== null}
      title={confirmation?.title ?? ''}
      onClose={onClose}
      actions={
        <>
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class={`button ${confirmation?.danger ? 'button-danger' : 'button-primary'}`}
            disabled={busy}
            onClick={() => void go()}
          >
            {busy ? 'Working…' : confirmation?.action}
          </button>
        </>
      }
    >
      {confirmation?.body}
      {error && (
        <div class="notice notice-error" role="alert">
          <p>{error}</p>
        </div>
      )}
    </Dialog>
  );
}

// Delete my account: what happens is said before she confirms (the database's deletion rule,
// docs/database.md), she types the word the database asks for (her handle, or "delete"), and
// afterwards this device forgets her: signed out, her local data gone.
import { useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { accountProblem } from '../../lib/account-words.ts';
import { confirmationWord, confirms, deleteMyAccount } from '../../state/account.ts';
import { profile } from '../../state/signals.ts';
import '../../styles/account.css';

export function DeleteAccount() {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);
  const word = confirmationWord(profile.value?.handle);
  const close = () => {
    if (busy) return;
    setOpen(false);
    setTyped('');
    setResult(null);
  };

  const remove = async (event: Event) => {
    event.preventDefault();
    if (!confirms(typed, word)) return;
    setResult(null);
    setBusy(true);
    try {
      await deleteMyAccount(typed);
      // Signed out: the app shows the welcome screen.
    } catch (error) {
      setResult({ tone: 'error', text: accountProblem(error) });
      setBusy(false);
    }
  };

  return (
    <section class="card stack account-danger" aria-labelledby="delete-title">
      <h2 id="delete-title" class="card-title">
        Delete account
      </h2>
      <p class="small muted">
        Removes your account and everything of yours from this server, for good. Download your data first if you want to
        keep it.
      </p>
      <div class="row">
        <button type="button" class="button button-danger" onClick={() => setOpen(true)}>
          Delete my account…
        </button>
      </div>
      <Dialog open={open} title="Delete your account for good?" onClose={close}>
        <form class="stack" onSubmit={(event) => void remove(event)} noValidate>
          <ul class="account-consequences">
            <li>
              Your sessions, tasks, stats, backups, files, buddies and profile are deleted. This cannot be undone.
            </li>
            <li>Your chat messages stay in their place as "message removed", without your name.</li>
            <li>
              Groups you own alone go to their longest-standing moderator, or else their longest-standing member. A
              group with nobody else in it is deleted.
            </li>
            <li>This device signs out and forgets your data.</li>
          </ul>
          <div class="field">
            <label class="field-label" for="delete-confirm">
              Type <strong>{word}</strong> to confirm
            </label>
            <input
              id="delete-confirm"
              class="input"
              autoComplete="off"
              autoCapitalize="off"
              spellcheck={false}
              value={typed}
              onInput={(event) => setTyped(event.currentTarget.value)}
            />
          </div>
          <ResultNotice result={result} />
          <div class="dialog-actions">
            <button type="button" class="button" onClick={close} disabled={busy}>
              Keep my account
            </button>
            <button type="submit" class="button button-danger" disabled={busy || !confirms(typed, word)}>
              {busy ? 'Deleting…' : 'Delete my account'}
            </button>
          </div>
        </form>
      </Dialog>
    </section>
  );
}

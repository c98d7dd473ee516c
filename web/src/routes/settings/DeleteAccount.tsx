// Delete my account: what happens is said before she confirms (the database's deletion rule,
// docs/database.md), she types the word the database asks for (her handle, or "delete") and her
// password, as GitHub asks to retype it: the database refuses a session that has not entered the
// password in the last minutes, so the dialog signs in with it first. Afterwards this device forgets
// her (signed out, her local data gone) and she lands on the welcome screen at `/`, which says the
// account was deleted.
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { PasswordField, usePasswordField } from '../../components/PasswordField.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { accountProblem } from '../../lib/account-words.ts';
import { ApiError } from '../../lib/api.ts';
import { confirmationWord, confirms, deleteMyAccount } from '../../state/account.ts';
import { profile } from '../../state/signals.ts';
import '../../styles/account.css';

export function DeleteAccount() {
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const password = usePasswordField('current', { emptyMessage: 'Enter your password to delete your account.' });
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);
  const word = confirmationWord(profile.value?.handle);
  const close = () => {
    if (busy) return;
    setOpen(false);
    setTyped('');
    password.reset();
    setResult(null);
  };

  const remove = async (event: Event) => {
    event.preventDefault();
    if (!confirms(typed, word)) return;
    setResult(null);
    if (await password.check()) return void document.getElementById('delete-password')?.focus();
    setBusy(true);
    try {
      await deleteMyAccount(typed, password.value);
      // Signed out and forgotten here: the welcome screen at `/` says the account was deleted.
      route('/', true);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_credentials') {
        password.refuse('That is not the password of this account. Nothing was deleted.');
        document.getElementById('delete-password')?.focus();
      } else setResult({ tone: 'error', text: accountProblem(error) });
      setBusy(false);
    }
  };

  return (
    <TitledSection class="card stack account-danger" titleId="delete-title" title="Delete account">
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
          <TextField
            id="delete-confirm"
            label={
              <>
                Type <strong>{word}</strong> to confirm
              </>
            }
            autoComplete="off"
            autoCapitalize="off"
            spellcheck={false}
            value={typed}
            onValue={setTyped}
          />
          <PasswordField
            field={password}
            id="delete-password"
            label="Your password"
            hint="Asked again before anything is deleted."
          />
          <ResultNotice result={result} />
          <div class="dialog-actions">
            <button type="button" class="button" onClick={close} disabled={busy}>
              Keep my account
            </button>
            <BusyButton
              type="submit"
              class="button button-danger"
              disabled={!confirms(typed, word)}
              busy={busy}
              busyLabel="Deleting…"
            >
              Delete my account
            </BusyButton>
          </div>
        </form>
      </Dialog>
    </TitledSection>
  );
}

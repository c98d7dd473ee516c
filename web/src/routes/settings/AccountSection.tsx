// Settings' account section: who is signed in, the password and the e-mail, her data, signing out
// here or everywhere. Deleting the account is its own card below (DeleteAccount.tsx).
import { useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { accountProblem } from '../../lib/account-words.ts';
import { plural } from '../../lib/format.ts';
import { signOutEverywhere } from '../../state/account.ts';
import { signOut } from '../../state/sign-out.ts';
import { account, syncState } from '../../state/signals.ts';
import { ChangeEmailForm } from './ChangeEmailForm.tsx';
import { ChangePasswordForm } from './ChangePasswordForm.tsx';
import { DownloadDataButton } from './DownloadDataButton.tsx';
import '../../styles/account.css';

type Leaving = 'here' | 'everywhere';

export function AccountSection() {
  const [confirming, setConfirming] = useState<Leaving | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);
  const waiting = syncState.value.pending + syncState.value.failed;

  const leave = async (scope: Leaving) => {
    setConfirming(null);
    setResult(null);
    if (scope === 'here') return void signOut();
    setBusy(true);
    try {
      await signOutEverywhere(); // the app returns to the welcome screen
    } catch (error) {
      setResult({ tone: 'error', text: `You are still signed in. ${accountProblem(error)}` });
      setBusy(false);
    }
  };
  const ask = (scope: Leaving) => (waiting > 0 ? setConfirming(scope) : void leave(scope));

  return (
    <TitledSection class="card stack" titleId="account-title" title="Account">
      <p>
        Signed in as <strong>{account.value?.email ?? 'this account'}</strong>.
      </p>
      <ChangePasswordForm />
      <ChangeEmailForm />
      <DownloadDataButton />
      <TitledSection class="stack account-part" titleId="sign-out-title" title="Signing out" kind="part">
        <p class="small muted">
          "Sign out everywhere" also ends the sessions of your other browsers and your phone, for example on a computer
          you no longer use.
        </p>
        <ResultNotice result={result} />
        <div class="row">
          <button type="button" class="button" onClick={() => ask('here')}>
            Sign out
          </button>
          <BusyButton
            type="button"
            class="button"
            onClick={() => ask('everywhere')}
            busy={busy}
            busyLabel="Signing out everywhere…"
          >
            Sign out everywhere
          </BusyButton>
        </div>
      </TitledSection>
      <Dialog
        open={confirming !== null}
        title="Sign out with changes waiting?"
        onClose={() => setConfirming(null)}
        actions={
          <>
            <button type="button" class="button" onClick={() => setConfirming(null)}>
              Stay signed in
            </button>
            <button type="button" class="button button-primary" onClick={() => confirming && void leave(confirming)}>
              {confirming === 'everywhere' ? 'Sign out everywhere anyway' : 'Sign out anyway'}
            </button>
          </>
        }
      >
        <p>
          {plural(waiting, 'change')} has not reached the server yet. It stays on this device and syncs when you sign in
          again.
        </p>
      </Dialog>
    </TitledSection>
  );
}

// "Sign in again" after the server ended this device's sign-in: the student's password for the
// same account, and her data stays as it is, its waiting changes sent once she is in. Or she signs
// out here instead (to use another account, or "Forgot password?"); her changes then wait on this
// device for her next sign-in.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { describeError } from '../lib/api.ts';
import { plural } from '../lib/format.ts';
import { signOut } from '../state/sign-out.ts';
import { signInAgain } from '../state/session-start.ts';
import { account, signInAgainOpen, syncState } from '../state/signals.ts';
import { BusyButton } from './BusyButton.tsx';
import { Dialog } from './Dialog.tsx';
import { TextField } from './TextField.tsx';

export default function SignInAgainDialog() {
  const { route } = useLocation();
  const known = account.value?.email ?? null;
  const [email, setEmail] = useState(known ?? '');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const waiting = syncState.value.pending + syncState.value.failed;
  const close = () => (signInAgainOpen.value = false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!password) return setProblem('Enter your password.');
    setBusy(true);
    setProblem(null);
    try {
      await signInAgain(email.trim(), password);
      close();
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const signOutHere = async (then?: string) => {
    close();
    await signOut();
    if (then) route(then);
  };

  return (
    <Dialog
      open
      title="Sign in again"
      onClose={close}
      actions={
        <>
          <button type="button" class="button button-quiet" onClick={() => void signOutHere()} disabled={busy}>
            Sign out instead
          </button>
          <BusyButton
            type="submit"
            form="sign-in-again"
            class="button button-primary"
            busy={busy}
            busyLabel="Signing in…"
          >
            Sign in
          </BusyButton>
        </>
      }
    >
      <p>
        The server ended the sign-in on this device: the password was changed or reset elsewhere, the account was signed
        out everywhere, or whoever runs studyhall suspended it.
      </p>
      <p>
        {waiting > 0
          ? `${plural(waiting, 'change')} made on this device ${waiting === 1 ? 'waits' : 'wait'} here and ${waiting === 1 ? 'is' : 'are'} sent once you sign in.`
          : 'Your data stays on this device as it is.'}
      </p>
      <form id="sign-in-again" class="stack" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          id="again-email"
          label="E-mail"
          type="email"
          autoComplete="username"
          value={email}
          onValue={setEmail}
          readOnly={known !== null}
        />
        <TextField
          id="again-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onValue={setPassword}
          // The dialog opens for this field: her e-mail is known.
          autoFocus
          error={problem}
          errorId="again-problem"
        />
        <p class="small muted">
          Forgot it?{' '}
          <button type="button" class="link-button" onClick={() => void signOutHere('/forgot-password')}>
            Sign out and reset your password
          </button>
          ; your changes wait on this device.
        </p>
      </form>
    </Dialog>
  );
}

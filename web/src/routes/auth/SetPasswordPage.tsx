// "Set a new password", after following a recovery link: the link signed the student in for this
// (its session may change the password without the old one), and saving leads into the app. The
// backend ends her other sessions, so the old password and any device still signed in with it stop
// working. The new password is checked as it is typed, by the server's own rule (PasswordField).
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { PasswordField, usePasswordField } from '../../components/PasswordField.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { ApiError } from '../../lib/api.ts';
import { accountProblem } from '../../lib/account-words.ts';
import { setNewPassword } from '../../state/account.ts';
import { authLinkOutcome, dismissAuthLink } from '../../state/auth-link.ts';
import { account } from '../../state/signals.ts';
import { AuthCard } from './AuthCard.tsx';
import '../../styles/welcome.css';

const EXPIRED = new Set(['invalid_token', 'session_not_found', 'bad_jwt', 'session_expired']);

export default function SetPasswordPage() {
  document.title = 'Set a new password · studyhall';
  const { route } = useLocation();
  const email = account.value?.email;
  const password = usePasswordField('new', {
    userInputs: email ? [email] : [],
    emptyMessage: 'Enter the new password.',
  });
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    if (await password.check()) return void document.getElementById('new-password')?.focus();
    setBusy(true);
    try {
      await setNewPassword(password.value);
      dismissAuthLink();
      route('/focus', true);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'weak_password') password.refuse(accountProblem(error));
      else if (error instanceof ApiError && EXPIRED.has(error.code))
        authLinkOutcome.value = {
          kind: 'failed',
          problem: 'The sign-in from this link has ended before the password was saved.',
        };
      else setResult({ tone: 'error', text: accountProblem(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard>
      <h1 class="welcome-title">Set a new password</h1>
      <p class="muted">
        For <strong>{email ?? 'your account'}</strong>. Other devices signed in to this account will be signed out.
      </p>
      <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
        <PasswordField field={password} id="new-password" label="New password" />
        <ResultNotice result={result} />
        <BusyButton type="submit" class="button button-primary button-large" busy={busy} busyLabel="Saving…">
          Save my new password
        </BusyButton>
      </form>
    </AuthCard>
  );
}

// Change password: the current one proves it is her (the backend asks for it), the new one is
// checked as it is typed by the backend's own rule and again by the backend, and a refusal says why
// in her words (too short, too common). The backend signs her other devices out; this one stays
// signed in.
import { useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { PasswordField, usePasswordField } from '../../components/PasswordField.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { ApiError } from '../../lib/api.ts';
import { accountProblem } from '../../lib/account-words.ts';
import { changePassword } from '../../state/account.ts';
import { account } from '../../state/signals.ts';

export function ChangePasswordForm() {
  const email = account.value?.email;
  const current = usePasswordField('current', { emptyMessage: 'Enter your current password.' });
  const next = usePasswordField('new', { userInputs: email ? [email] : [], emptyMessage: 'Enter the new password.' });
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    const currentProblem = await current.check();
    const nextProblem = await next.check();
    if (currentProblem || nextProblem)
      return void document.getElementById(currentProblem ? 'current-password' : 'changed-password')?.focus();
    setBusy(true);
    try {
      await changePassword(current.value, next.value);
      current.reset();
      next.reset();
      setResult({
        tone: 'success',
        text: 'Password changed. Use it from now on; your other devices were signed out.',
      });
    } catch (error) {
      const code = error instanceof ApiError ? error.code : '';
      if (code === 'weak_password' || code === 'same_password') next.refuse(accountProblem(error));
      else if (code === 'invalid_credentials') current.refuse(accountProblem(error));
      else setResult({ tone: 'error', text: accountProblem(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="stack account-part"
      aria-labelledby="password-title"
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <h3 id="password-title" class="section-title">
        Password
      </h3>
      <div class="settings-grid">
        <PasswordField field={current} id="current-password" label="Current password" />
        <PasswordField field={next} id="changed-password" label="New password" />
      </div>
      <ResultNotice result={result} />
      <div class="row">
        <BusyButton type="submit" class="button" busy={busy} busyLabel="Changing…">
          Change password
        </BusyButton>
      </div>
    </form>
  );
}

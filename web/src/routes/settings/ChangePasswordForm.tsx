// Change password: the current one proves it is her (the backend asks for it), the new one is
// checked by the backend, and a refusal says why in her words (too short, too common). The
// backend signs her other devices out; this one stays signed in.
import { useState } from 'preact/hooks';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { ApiError } from '../../lib/api.ts';
import { accountProblem } from '../../lib/account-words.ts';
import { passwordLengthProblem } from '../../lib/password-words.ts';
import { changePassword } from '../../state/account.ts';

interface FieldErrors {
  current?: string;
  next?: string;
}

export function ChangePasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    const problems: FieldErrors = {};
    if (!current) problems.current = 'Enter your current password.';
    const nextProblem = passwordLengthProblem(next);
    if (nextProblem) problems.next = nextProblem;
    setErrors(problems);
    if (problems.current || problems.next) return;
    setBusy(true);
    try {
      await changePassword(current, next);
      setCurrent('');
      setNext('');
      setResult({
        tone: 'success',
        text: 'Password changed. Use it from now on; your other devices were signed out.',
      });
    } catch (error) {
      const code = error instanceof ApiError ? error.code : '';
      if (code === 'weak_password' || code === 'same_password') setErrors({ next: accountProblem(error) });
      else if (code === 'invalid_credentials') setErrors({ current: accountProblem(error) });
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
        <div class="field">
          <label class="field-label" for="current-password">
            Current password
          </label>
          <input
            id="current-password"
            class="input"
            type="password"
            autoComplete="current-password"
            value={current}
            onInput={(event) => setCurrent(event.currentTarget.value)}
            aria-invalid={errors.current ? true : undefined}
            aria-describedby={errors.current ? 'current-password-error' : undefined}
          />
          {errors.current && (
            <p id="current-password-error" class="field-error" role="alert">
              {errors.current}
            </p>
          )}
        </div>
        <div class="field">
          <label class="field-label" for="changed-password">
            New password
          </label>
          <input
            id="changed-password"
            class="input"
            type="password"
            autoComplete="new-password"
            value={next}
            onInput={(event) => setNext(event.currentTarget.value)}
            aria-invalid={errors.next ? true : undefined}
            aria-describedby={errors.next ? 'changed-password-error' : 'changed-password-hint'}
          />
          {errors.next ? (
            <p id="changed-password-error" class="field-error" role="alert">
              {errors.next}
            </p>
          ) : (
            <p id="changed-password-hint" class="field-hint">
              At least 8 characters, not a common password.
            </p>
          )}
        </div>
      </div>
      <ResultNotice result={result} />
      <div class="row">
        <button type="submit" class="button" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

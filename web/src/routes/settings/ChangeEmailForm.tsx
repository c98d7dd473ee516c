// Change e-mail: the backend mails a confirmation link to the new address and one to the current
// address, and the address changes only once she has opened both (each leads back here; the last
// one signs her in: state/auth-link.ts).
import { useEffect, useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { ApiError } from '../../lib/api.ts';
import { accountProblem } from '../../lib/account-words.ts';
import { changeEmail } from '../../state/account.ts';
import { authLinkOutcome, dismissAuthLink } from '../../state/auth-link.ts';
import { account } from '../../state/signals.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function ChangeEmailForm() {
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);

  // Back from a confirmation link: say what it did, once.
  useEffect(() => {
    const outcome = authLinkOutcome.value?.kind;
    if (outcome === 'email-changed') {
      setResult({ tone: 'success', text: `Your e-mail address is now ${account.value?.email ?? 'confirmed'}.` });
      dismissAuthLink();
    } else if (outcome === 'email-half-confirmed') {
      setResult({
        tone: 'success',
        text: 'One address is confirmed. Open the link sent to the other address too: your address changes once both are confirmed.',
      });
      dismissAuthLink();
    }
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    const address = email.trim();
    if (!EMAIL.test(address)) return setFieldError('Enter an e-mail address, like name@example.com.');
    if (address.toLowerCase() === account.value?.email?.toLowerCase())
      return setFieldError('This is already your address.');
    setFieldError(null);
    setBusy(true);
    try {
      await changeEmail(address);
      setEmail('');
      setResult({
        tone: 'success',
        text: `We sent a confirmation link to ${address} and one to ${account.value?.email ?? 'your current address'}. Your address changes once you have opened both; until then, keep using ${account.value?.email ?? 'the current one'}.`,
      });
    } catch (error) {
      if (error instanceof ApiError && ['email_exists', 'email_taken', 'email_address_invalid'].includes(error.code))
        setFieldError(accountProblem(error));
      else setResult({ tone: 'error', text: accountProblem(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack account-part" aria-labelledby="email-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="email-title" class="section-title">
        E-mail address
      </h3>
      <div class="inline-form">
        <TextField
          id="new-email"
          label="New e-mail address"
          type="email"
          autoComplete="email"
          value={email}
          onValue={setEmail}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? 'new-email-error' : undefined}
        />
        <BusyButton type="submit" class="button" busy={busy} busyLabel="Sending…">
          Change e-mail
        </BusyButton>
      </div>
      <FieldError id="new-email-error" message={fieldError} />
      <ResultNotice result={result} />
    </form>
  );
}

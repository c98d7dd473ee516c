// "Forgot password?": asks for the e-mail address and has the backend make a recovery link back to
// this app. The answer is the same whether or not an account uses the address (the backend's rule
// too), so the page never tells who has an account. It says where the link goes: to her mailbox
// where the server sends mail (`sends_mail` of /api/client-config), else nowhere but the server's
// outbox, so the person who runs the server has it. Also where a failed link lands, with why.
import { useEffect, useState } from 'preact/hooks';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { accountProblem, SERVER_OWNER } from '../../lib/account-words.ts';
import { clientConfig } from '../../lib/client-config.ts';
import { requestPasswordReset } from '../../state/account.ts';
import { dismissAuthLink } from '../../state/auth-link.ts';
import { AuthCard } from './AuthCard.tsx';
import '../../styles/welcome.css';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether this server mails the link; unknown (an older server) counts as mailing, as it used to. */
async function sendsMail(): Promise<boolean> {
  return (await clientConfig().catch(() => null))?.sends_mail !== false;
}

function sentSentence(address: string, mailed: boolean): string {
  return mailed
    ? `If an account exists for ${address}, we sent a link to it. Open it within an hour to set a new password.`
    : `If an account exists for ${address}, its reset link is now waiting on this server. Ask ${SERVER_OWNER} for it, and open it within an hour.`;
}

export interface ForgotPasswordProps {
  /** Why the student is here again: the link she followed failed. */
  problem?: string;
}

export default function ForgotPasswordPage({ problem }: ForgotPasswordProps) {
  document.title = 'Reset your password · studyhall';
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [mailed, setMailed] = useState<boolean | null>(null);
  useEffect(() => void sendsMail().then(setMailed), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const address = email.trim();
    setResult(null);
    if (!EMAIL.test(address)) {
      setEmailError('Enter your e-mail address, like name@example.com.');
      return;
    }
    setEmailError(null);
    setBusy(true);
    try {
      await requestPasswordReset(address);
      const mails = await sendsMail();
      setMailed(mails);
      setResult({ tone: 'success', text: sentSentence(address, mails) });
    } catch (error) {
      setResult({ tone: 'error', text: accountProblem(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard>
      <h1 class="welcome-title">Reset your password</h1>
      {problem && (
        <div class="notice notice-warning" role="alert">
          <p>{problem} Ask for a new one below.</p>
        </div>
      )}
      <p class="muted">
        {mailed === false
          ? `Enter the e-mail address of your account. This server sends no e-mail: the link to set a new password waits with ${SERVER_OWNER}.`
          : 'Enter the e-mail address of your account. We will send you a link to set a new password.'}
      </p>
      <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          id="recover-email"
          label="E-mail"
          type="email"
          autoComplete="email"
          value={email}
          onValue={setEmail}
          error={emailError}
        />
        <ResultNotice result={result} />
        <button type="submit" class="button button-primary button-large" disabled={busy}>
          {mailed === false ? (busy ? 'Asking…' : 'Ask for a reset link') : busy ? 'Sending…' : 'Send me a link'}
        </button>
      </form>
      <a class="welcome-back" href="/" onClick={dismissAuthLink}>
        Back to log in
      </a>
    </AuthCard>
  );
}

// Welcome: log in or create an account. A refused login gets one answer, "wrong e-mail or
// password", whether or not the address has an account (as the forgot-password form answers every
// address alike), so the form tells nobody who is registered; only the right password of a
// suspended account is told it is suspended, and until when. The password field checks a new
// password as it is typed, by the server's own rule. A device nobody has signed in on yet is greeted
// as a first visit and opens on "Create account"; the mode switch is a pair of tabs, and the submit
// button says what it does, so no two controls share a name. Offline use is promised only where it
// holds: a page at a plain-HTTP address has no service worker, and says what offline use needs
// instead. Right after an account was deleted on this device, that is said first.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { PasswordField, usePasswordField } from '../../components/PasswordField.tsx';
import { SecureAddressNote } from '../../components/SecureAddressNote.tsx';
import { TextField } from '../../components/TextField.tsx';
import { suspendedSentence } from '../../lib/account-words.ts';
import { ApiError, describeError } from '../../lib/api.ts';
import { weakPasswordSentence } from '../../lib/password-words.ts';
import { isSecurePage } from '../../lib/secure-page.ts';
import { signedInHereBefore } from '../../lib/session-storage.ts';
import { signIn, type AuthMode } from '../../state/auth.ts';
import { accountFarewell } from '../../state/farewell.ts';
import { AuthCard } from './AuthCard.tsx';
import '../../styles/welcome.css';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Problem = { text: string; suggest?: AuthMode } | null;

/** The one answer to a refused login, whoever the address belongs to. */
export const WRONG_CREDENTIALS = 'Wrong e-mail or password. Check both, or choose “Forgot password?” to set a new one.';

/** Said once, first, after this device's account was deleted. */
function Farewell() {
  const ref = useRef<HTMLDivElement>(null);
  const farewell = accountFarewell.value;
  useEffect(() => ref.current?.focus(), []);
  if (!farewell) return null;
  return (
    <div ref={ref} tabIndex={-1} class="notice notice-success" role="status">
      <p>
        {farewell.email ? `The account ${farewell.email} was deleted` : 'Your account was deleted'}, with everything of
        it on this server and on this device.
      </p>
    </div>
  );
}

export interface WelcomeProps {
  /** Unset: log in on a device someone signed in on before, create an account on a first visit. */
  initialMode?: AuthMode;
  /** Shown above the form, e.g. what an invite link leads to. */
  intro?: ComponentChildren;
  /** 2 when the intro holds the page's main heading. */
  headingLevel?: 1 | 2;
}

const MODES: { mode: AuthMode; tab: string; submit: string; busy: string }[] = [
  { mode: 'login', tab: 'Log in', submit: 'Log in to my account', busy: 'Logging in…' },
  { mode: 'signup', tab: 'Create account', submit: 'Create my account', busy: 'Creating your account…' },
];

export default function WelcomePage({ initialMode, intro, headingLevel = 1 }: WelcomeProps) {
  const [firstVisit] = useState(() => !signedInHereBefore());
  const [mode, setMode] = useState<AuthMode>(() => initialMode ?? (firstVisit ? 'signup' : 'login'));
  const current = MODES.find((entry) => entry.mode === mode) ?? MODES[0]!;
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  const [email, setEmail] = useState('');
  const password = usePasswordField(mode === 'signup' ? 'new' : 'current', { userInputs: [email.trim()] });
  const [emailError, setEmailError] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const address = email.trim();
    const badEmail = EMAIL.test(address) ? null : 'Enter your e-mail address, like name@example.com.';
    setEmailError(badEmail);
    setProblem(null);
    const badPassword = await password.check();
    if (badEmail || badPassword) {
      document.getElementById(badEmail ? 'email' : 'password')?.focus();
      return;
    }
    accountFarewell.value = null;
    setBusy(true);
    try {
      await signIn(mode, address, password.value);
    } catch (error) {
      // A password the server's input rules refuse (too short, too long) cannot be hers either.
      const refusedLogin = mode === 'login' && error instanceof ApiError && error.code === 'invalid_request';
      if ((error instanceof ApiError && error.code === 'invalid_credentials') || refusedLogin) {
        setProblem({ text: WRONG_CREDENTIALS });
      } else if (error instanceof ApiError && error.code === 'account_suspended') {
        setProblem({ text: suspendedSentence(error.details.banned_until as string | null | undefined) });
      } else if (error instanceof ApiError && error.code === 'email_taken') {
        // Said only where the backend itself says it (GoTrue with accounts confirmed at once).
        setProblem({
          text: 'An account with this e-mail already exists. Log in, or set a new password if you forgot it.',
          suggest: 'login',
        });
      } else if (error instanceof ApiError && error.code === 'weak_password') {
        password.refuse(weakPasswordSentence(error.details.reasons as unknown[] | undefined));
      } else if (error instanceof ApiError && error.code === 'invalid_request') {
        setProblem({ text: 'The server did not accept this e-mail or password. Check both and try again.' });
      } else {
        setProblem({ text: describeError(error) });
      }
    } finally {
      setBusy(false);
    }
  };

  const switchTo = (next: AuthMode) => {
    setMode(next);
    setProblem(null);
    setEmailError(null);
    password.refuse(null);
  };

  /** Tabs move with the arrow keys (and Home, End); Tab goes on to the form. */
  const moveBetweenTabs = (event: KeyboardEvent) => {
    const index = MODES.findIndex((entry) => entry.mode === mode);
    const target =
      event.key === 'ArrowRight'
        ? (index + 1) % MODES.length
        : event.key === 'ArrowLeft'
          ? (index + MODES.length - 1) % MODES.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? MODES.length - 1
              : -1;
    const next = MODES[target];
    if (!next) return;
    event.preventDefault();
    switchTo(next.mode);
    document.getElementById(`welcome-tab-${next.mode}`)?.focus();
  };

  return (
    <AuthCard>
      <Farewell />
      {intro}
      <Heading class="welcome-title">
        {firstVisit ? 'Welcome to studyhall' : mode === 'login' ? 'Welcome back' : 'Create your account'}
      </Heading>
      <p class="muted">
        {mode === 'login'
          ? `Log in to your timer, tasks and stats.${isSecurePage() ? ' Everything also works offline on this device.' : ''}`
          : 'Your account keeps your sessions backed up on this server and lets your phone and other devices join in.'}
      </p>
      {mode === 'login' && !isSecurePage() && <SecureAddressNote feature="offline" />}
      <div class="segmented" role="tablist" aria-label="Log in or create an account" onKeyDown={moveBetweenTabs}>
        {MODES.map((entry) => (
          <button
            key={entry.mode}
            type="button"
            role="tab"
            id={`welcome-tab-${entry.mode}`}
            class={mode === entry.mode ? 'is-selected' : ''}
            aria-selected={mode === entry.mode}
            aria-controls="welcome-form"
            tabIndex={mode === entry.mode ? 0 : -1}
            onClick={() => switchTo(entry.mode)}
          >
            {entry.tab}
          </button>
        ))}
      </div>
      {/* The tab panel wraps the form: a form may not take the tabpanel role itself. */}
      <div id="welcome-form" role="tabpanel" aria-labelledby={`welcome-tab-${mode}`}>
        <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
          <TextField
            id="email"
            label="E-mail"
            type="email"
            autoComplete="email"
            value={email}
            onValue={setEmail}
            error={emailError}
          />
          <PasswordField
            field={password}
            id="password"
            label="Password"
            autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
          >
            {mode === 'login' && (
              <a class="welcome-forgot" href="/forgot-password">
                Forgot password?
              </a>
            )}
          </PasswordField>
          {problem && (
            <div class="notice notice-error" role="alert">
              <p>{problem.text}</p>
              {problem.suggest && (
                <button type="button" class="button" onClick={() => switchTo(problem.suggest as AuthMode)}>
                  {problem.suggest === 'signup' ? 'Create an account' : 'Log in instead'}
                </button>
              )}
            </div>
          )}
          <button type="submit" class="button button-primary button-large" disabled={busy}>
            {busy ? current.busy : current.submit}
          </button>
        </form>
      </div>
    </AuthCard>
  );
}

// Welcome: log in or create an account. A refused login asks the server whether the e-mail has an
// account at all, so "new here" and "wrong password" get different answers. A device nobody has
// signed in on yet is greeted as a first visit and opens on "Create account"; the mode switch is a
// pair of tabs, and the submit button says what it does, so no two controls share a name. Offline
// use is promised only where it holds: a page at a plain-HTTP address has no service worker, and
// says what offline use needs instead.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { SecureAddressNote } from '../../components/SecureAddressNote.tsx';
import { ApiError, describeError } from '../../lib/api.ts';
import { weakPasswordSentence } from '../../lib/password-words.ts';
import { isSecurePage } from '../../lib/secure-page.ts';
import { signedInHereBefore } from '../../lib/session-storage.ts';
import { isRegistered, signIn, type AuthMode } from '../../state/auth.ts';
import '../../styles/welcome.css';

interface FieldErrors {
  email?: string;
  password?: string;
}

function validate(email: string, password: string): FieldErrors {
  const errors: FieldErrors = {};
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) errors.email = 'Enter your e-mail address, like name@example.com.';
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < 8) errors.password = 'The password needs at least 8 characters.';
  else if (bytes > 72) errors.password = 'The password can be at most 72 bytes long.';
  return errors;
}

type Problem = { text: string; suggest?: AuthMode } | null;

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
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<Problem>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const fieldErrors = validate(email.trim(), password);
    setErrors(fieldErrors);
    setProblem(null);
    if (fieldErrors.email || fieldErrors.password) return;
    setBusy(true);
    try {
      await signIn(mode, email.trim(), password);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_credentials') {
        const registered = await isRegistered(email.trim());
        if (registered === false)
          setProblem({ text: 'No account uses this e-mail yet. Are you new here?', suggest: 'signup' });
        else setErrors({ password: 'This password does not match the account. Check it and try again.' });
      } else if (error instanceof ApiError && error.code === 'email_taken') {
        setProblem({ text: 'An account with this e-mail already exists.', suggest: 'login' });
      } else if (error instanceof ApiError && error.code === 'weak_password') {
        setErrors({ password: weakPasswordSentence(error.details.reasons as unknown[] | undefined) });
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
    setErrors({});
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
    <main class="welcome" id="main">
      <div class="welcome-card card">
        <div class="welcome-brand">
          <img src="/icon.svg" alt="" width="40" height="40" />
          <p class="welcome-name">studyhall</p>
        </div>
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
            <div class="field">
              <label class="field-label" for="email">
                E-mail
              </label>
              <input
                id="email"
                class="input"
                type="email"
                autoComplete="email"
                value={email}
                onInput={(event) => setEmail(event.currentTarget.value)}
                aria-invalid={errors.email ? true : undefined}
                aria-describedby={errors.email ? 'email-error' : undefined}
              />
              {errors.email && (
                <p id="email-error" class="field-error" role="alert">
                  {errors.email}
                </p>
              )}
            </div>
            <div class="field">
              <label class="field-label" for="password">
                Password
              </label>
              <input
                id="password"
                class="input"
                type="password"
                autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
                value={password}
                onInput={(event) => setPassword(event.currentTarget.value)}
                aria-invalid={errors.password ? true : undefined}
                aria-describedby={errors.password ? 'password-error' : mode === 'signup' ? 'password-hint' : undefined}
              />
              {errors.password ? (
                <p id="password-error" class="field-error" role="alert">
                  {errors.password}
                </p>
              ) : (
                mode === 'signup' && (
                  <p id="password-hint" class="field-hint">
                    At least 8 characters.
                  </p>
                )
              )}
              {mode === 'login' && (
                <a class="welcome-forgot" href="/forgot-password">
                  Forgot password?
                </a>
              )}
            </div>
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
      </div>
    </main>
  );
}

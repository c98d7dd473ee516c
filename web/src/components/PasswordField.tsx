// The one password field of the app, wherever a password is typed: choosing one (sign-up, a new
// password after a recovery link, changing it) or proving one (logging in, the current password,
// confirming a deletion).
//
// A new password is checked as she types by the rule the server applies (contracts/password-rule.ts;
// its list of common passwords loads when she first types, never with the focus page): a problem
// shows once she pauses (or leaves the field, or submits), and a password that passes says so at
// once. A refusal from the form or the server stays only until she changes the password. The
// message under the field describes the input (aria-describedby) and sits in a polite live region,
// so a screen reader hears when the verdict changes, not every keystroke; a refusal is an alert.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isTooLong, isTooShort, loadPasswordRule, type PasswordRule } from '#contracts/password-rule.ts';
import {
  NEW_PASSWORD_HINT,
  NEW_PASSWORD_PASSES,
  passwordSentence,
  type PasswordProblem,
} from '../lib/password-words.ts';
import { Field } from './Field.tsx';

export type PasswordPurpose = 'new' | 'current';

/** How long she must pause before a problem with a new password is shown. */
const SETTLE_MS = 400;

export interface PasswordFieldState {
  purpose: PasswordPurpose;
  value: string;
  /** A sentence from the form or the server, shown until the password changes. */
  refusal: string | null;
  /** Known words for the rule (the e-mail address). */
  userInputs: string[];
  rule: PasswordRule | null;
  /** She left the field or submitted: a short password is then an error, not a hint. */
  touched: boolean;
  setValue(value: string): void;
  /** Shows a refusal under the field (a server's `weak_password`, a wrong current password). */
  refuse(sentence: string | null): void;
  /** Starts loading the list of common passwords (for a new password), without waiting. */
  prepare(): void;
  markTouched(): void;
  /**
   * The check before submitting: a sentence (also shown under the field), or null when the
   * password may be sent. A new password waits for the list; offline, the server decides.
   */
  check(): Promise<string | null>;
  reset(): void;
}

function problemOf(value: string, rule: PasswordRule | null, userInputs: readonly string[]): PasswordProblem | null {
  if (isTooLong(value)) return 'too_long';
  if (isTooShort(value)) return 'length';
  return rule?.weakness(value, userInputs) ?? null;
}

/**
 * The field's state. `emptyMessage` is what submitting it empty says ("Enter your password.");
 * `userInputs` are the words a new password must not be built from.
 */
export function usePasswordField(
  purpose: PasswordPurpose,
  { userInputs = [], emptyMessage = 'Enter your password.' }: { userInputs?: string[]; emptyMessage?: string } = {},
): PasswordFieldState {
  const [value, setValueState] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  const [rule, setRule] = useState<PasswordRule | null>(null);
  const [touched, setTouched] = useState(false);

  const prepare = () => {
    if (purpose !== 'new' || rule) return;
    loadPasswordRule().then(setRule, () => undefined); // offline: the server checks on submit
  };

  return {
    purpose,
    value,
    refusal,
    userInputs,
    rule,
    touched,
    setValue(next) {
      setValueState(next);
      setRefusal(null);
      prepare();
    },
    refuse: setRefusal,
    prepare,
    markTouched: () => setTouched(true),
    async check() {
      setTouched(true);
      let sentence: string | null = null;
      if (!value) sentence = emptyMessage;
      else if (purpose === 'new') {
        const loaded = rule ?? (await loadPasswordRule().catch(() => null));
        if (loaded && !rule) setRule(loaded);
        const problem = problemOf(value, loaded, userInputs);
        sentence = problem ? passwordSentence(problem) : null;
      }
      setRefusal(sentence);
      return sentence;
    },
    reset() {
      setValueState('');
      setRefusal(null);
      setTouched(false);
    },
  };
}

/** The value once she has paused typing for a moment. */
function useSettled(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (value === settled) return;
    const timer = setTimeout(() => setSettled(value), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [value, settled]);
  return settled;
}

type Message = { tone: 'hint' | 'error' | 'ok'; text: string } | null;

function messageFor(field: PasswordFieldState, settled: string, hint: string | undefined): Message {
  if (field.refusal) return { tone: 'error', text: field.refusal };
  if (field.purpose === 'current' || !field.value) return hint ? { tone: 'hint', text: hint } : null;
  const problem = problemOf(field.value, field.rule, field.userInputs);
  if (!problem) return field.rule ? { tone: 'ok', text: NEW_PASSWORD_PASSES } : { tone: 'hint', text: hint ?? '' };
  // A problem waits for a pause; "too short" also for her to leave the field, as she is still typing.
  const shown = settled === field.value && (problem !== 'length' || field.touched);
  return shown ? { tone: 'error', text: passwordSentence(problem) } : { tone: 'hint', text: hint ?? '' };
}

export interface PasswordFieldProps {
  field: PasswordFieldState;
  id: string;
  label: string;
  /** Below the field while nothing else is said; a new password has its own. */
  hint?: string;
  /** `current-password` or `new-password` by the purpose; a form that switches may say. */
  autoComplete?: string;
  /** Below the message, inside the field (a "Forgot password?" link). */
  children?: ComponentChildren;
}

export function PasswordField({ field, id, label, hint, autoComplete, children }: PasswordFieldProps) {
  const settled = useSettled(field.value);
  const message = messageFor(field, settled, hint ?? (field.purpose === 'new' ? NEW_PASSWORD_HINT : undefined));
  const messageId = `${id}-message`;
  const toneClass = message?.tone === 'error' ? 'field-error' : message?.tone === 'ok' ? 'field-ok' : 'field-hint';
  return (
    <Field id={id} label={label}>
      <input
        id={id}
        class="input"
        type="password"
        autoComplete={autoComplete ?? (field.purpose === 'new' ? 'new-password' : 'current-password')}
        value={field.value}
        onFocus={field.prepare}
        onBlur={field.markTouched}
        onInput={(event) => field.setValue(event.currentTarget.value)}
        aria-invalid={message?.tone === 'error' ? true : undefined}
        aria-describedby={message?.text ? messageId : undefined}
      />
      <div aria-live="polite" class="live">
        {message?.text && (
          // A refusal (on submitting, or from the server) is said at once; the verdict as she types, politely.
          <p id={messageId} class={toneClass} role={field.refusal ? 'alert' : undefined}>
            {message.text}
          </p>
        )}
      </div>
      {children}
    </Field>
  );
}

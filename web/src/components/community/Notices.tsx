// The community screens' shared states: an error that says what happened with its action (a
// sign-in the server ended offers "Sign in again" and reads again once she is back), a
// confirmation that announces itself, and a copy-to-clipboard button that says it worked, or,
// where the browser gives no clipboard (a plain-HTTP page) or refuses it, selects the text for the
// student to copy and says how.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { codeOf, describeCommunityError } from '../../lib/community/words.ts';
import { SIGNED_OUT_TEXT } from '../../lib/sync-status.ts';
import { checkSession } from '../../state/auth.ts';
import { sessionEnded, signInAgainOpen } from '../../state/signals.ts';
import { CopyIcon } from './icons.tsx';

export function ErrorNotice({
  error,
  onRetry,
  children,
}: {
  error: unknown;
  onRetry?: () => void;
  children?: ComponentChildren;
}) {
  const signedOut = sessionEnded.value || codeOf(error) === 'signed_out';
  const wasEnded = useRef(sessionEnded.value);
  useEffect(() => {
    // Refused as signed out: has the server ended this device's sign-in? Ask now, not in 30 s.
    if (codeOf(error) === 'signed_out') void checkSession(true);
  }, [error]);
  useEffect(() => {
    // Signed in again: read what failed once more.
    if (wasEnded.current && !sessionEnded.value) onRetry?.();
    wasEnded.current = sessionEnded.value;
  }, [sessionEnded.value]);
  if (signedOut)
    return (
      <div class="notice notice-warning" role="alert">
        <p>
          <strong>{SIGNED_OUT_TEXT}.</strong> This page shows again once you do.
        </p>
        {/* Once the server's refusal is confirmed, the banner above the page holds the one "Sign in again". */}
        {!sessionEnded.value && (
          <button type="button" class="button button-primary" onClick={() => (signInAgainOpen.value = true)}>
            Sign in again
          </button>
        )}
      </div>
    );
  return (
    <div class="notice notice-error" role="alert">
      <p>{children ?? describeCommunityError(error)}</p>
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function SuccessNotice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice notice-success" role="status">
      <p>{children}</p>
    </div>
  );
}

export function CopyButton({
  text,
  inputId,
  label = 'Copy link',
  class: className = 'button',
}: {
  text: string;
  /** The read-only field that shows `text`: selected for the student when the clipboard is out of reach. */
  inputId: string;
  label?: string;
  class?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    // The hint stays long enough to read and act on; "Copied" is only a confirmation.
    const timer = setTimeout(() => setState('idle'), state === 'selected' ? 10_000 : 2500);
    return () => clearTimeout(timer);
  }, [state]);
  const selectText = () => {
    const input = document.getElementById(inputId);
    if (input instanceof HTMLInputElement) {
      input.focus();
      input.select();
    }
    setState('selected');
  };
  const copy = async () => {
    // Browsers give navigator.clipboard to secure pages only, and may refuse it there too.
    if (!navigator.clipboard) return selectText();
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      selectText();
    }
  };
  return (
    <>
      <button type="button" class={className} onClick={() => void copy()}>
        <CopyIcon size={18} />
        <span aria-live="polite">{state === 'copied' ? 'Copied' : label}</span>
      </button>
      <span class="copy-hint small" aria-live="polite">
        {state === 'selected' ? 'Press Ctrl+C / long-press to copy' : ''}
      </span>
    </>
  );
}

// The community screens' shared states: an error that says what happened with its action, a
// confirmation that announces itself, and a copy-to-clipboard button that says it worked.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describeCommunityError } from '../../lib/community/words.ts';
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
  label = 'Copy link',
  class: className = 'button',
}: {
  text: string;
  label?: string;
  class?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" class={className} onClick={() => void copy()}>
      <CopyIcon size={18} />
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy the link' : label}
      </span>
    </button>
  );
}

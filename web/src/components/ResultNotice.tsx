// The outcome of an action (saved, sent, refused), said once: the live region is always in the
// page, so a screen reader announces what appears in it, and focus moves to the message, so a
// keyboard user lands on it instead of losing their place on a button that went busy.
import { useEffect, useRef } from 'preact/hooks';

export interface Result {
  tone: 'success' | 'error';
  text: string;
}

export function ResultNotice({ result, id }: { result: Result | null; id?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (result) ref.current?.focus();
  }, [result]);
  return (
    <div aria-live="polite" class="live">
      {result && (
        <div
          ref={ref}
          id={id}
          tabIndex={-1}
          role={result.tone === 'error' ? 'alert' : 'status'}
          class={`notice ${result.tone === 'error' ? 'notice-error' : 'notice-success'}`}
        >
          <p>{result.text}</p>
        </div>
      )}
    </div>
  );
}

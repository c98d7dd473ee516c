// A button that shows its work: while busy it is disabled and says what it is doing ("Saving…"),
// so a second press cannot send the same request again.
import type { ComponentChildren, JSX } from 'preact';

export interface BusyButtonProps extends Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, 'children'> {
  busy: boolean;
  /** What the button says while busy. */
  busyLabel: ComponentChildren;
  children: ComponentChildren;
}

export function BusyButton({ busy, busyLabel, disabled, children, ...button }: BusyButtonProps) {
  return (
    <button {...button} disabled={busy || disabled}>
      {busy ? busyLabel : children}
    </button>
  );
}

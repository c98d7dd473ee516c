// Closing an open popover the way people expect: Escape closes it and puts focus back on the
// button that opened it (so a keyboard user is not left on a vanished element), and a press
// anywhere outside the anchor closes it. The listeners are attached as the popover is drawn (a
// layout effect), not a frame later: an Escape pressed at once, as a keyboard user may, still closes it.
import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

export function usePopoverDismiss(
  open: boolean,
  anchor: RefObject<HTMLElement>,
  toggle: RefObject<HTMLElement>,
  close: () => void,
): void {
  useLayoutEffect(() => {
    if (!open) return;
    const dismiss = (event: Event) => {
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        close();
        toggle.current?.focus();
      } else if (!anchor.current?.contains(event.target as Node)) close();
    };
    document.addEventListener('pointerdown', dismiss);
    document.addEventListener('keydown', dismiss);
    return () => {
      document.removeEventListener('pointerdown', dismiss);
      document.removeEventListener('keydown', dismiss);
    };
  }, [open]);
}

// A popover opened by a button: whether it is open, the anchor that holds the button and the
// panel (a press outside it closes the panel), and the button's attributes, which say whether the
// panel is open and which one it controls. It closes as usePopoverDismiss describes.
import { useRef, useState } from 'preact/hooks';
import { usePopoverDismiss } from './usePopoverDismiss.ts';

export function usePopover(panelId: string) {
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const close = () => setOpen(false);
  usePopoverDismiss(open, anchor, toggle, close);
  return {
    open,
    close,
    anchor,
    toggleProps: { ref: toggle, 'aria-expanded': open, 'aria-controls': panelId, onClick: () => setOpen(!open) },
  };
}

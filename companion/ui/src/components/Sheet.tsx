// A bottom sheet on the native <dialog>: modal, focus kept inside, Escape and a tap on the backdrop
// close it, and focus returns to the button that opened it.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface SheetProps {
  id: string;
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
}

export function Sheet({ id, title, open, onClose, children }: SheetProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      class="sheet"
      aria-labelledby={`${id}-title`}
      onClose={onClose}
      onClick={(event) => {
        if (event.target === dialog.current) onClose();
      }}
    >
      <div class="sheet-body">
        <div class="sheet-grip" aria-hidden="true" />
        <header class="sheet-header">
          <h2 id={`${id}-title`}>{title}</h2>
          <button type="button" class="text-button" onClick={onClose}>
            Done
          </button>
        </header>
        {open ? children : null}
      </div>
    </dialog>
  );
}

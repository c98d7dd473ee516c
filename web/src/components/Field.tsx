// A form control under its label, in the .field block every form uses: the label names the
// control through for/id, so the control must carry the same id.
import type { ComponentChildren } from 'preact';

export interface FieldProps {
  /** The id of the control the label names. */
  id: string;
  label: ComponentChildren;
  /** The control, then whatever is said under it (a hint, an error). */
  children: ComponentChildren;
}

export function Field({ id, label, children }: FieldProps) {
  return (
    <div class="field">
      <label class="field-label" for={id}>
        {label}
      </label>
      {children}
    </div>
  );
}

// A labelled text input (Field) that reports its value as a string, and says what is wrong with
// it: with an error the input is marked invalid and described by the FieldError line under it.
import type { ComponentChildren, JSX } from 'preact';
import { Field } from './Field.tsx';
import { FieldError } from './FieldError.tsx';

type InputAttributes = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id' | 'class' | 'value' | 'onInput'>;

export interface TextFieldProps extends InputAttributes {
  id: string;
  label: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  /** Classes of the input besides `input` (`input-number`). */
  inputClass?: string;
  error?: string | null;
  /** The id of the error line; `<id>-error` unless given. */
  errorId?: string;
  /** Said under the input, after any error (a hint). */
  children?: ComponentChildren;
}

export function TextField({
  id,
  label,
  value,
  onValue,
  inputClass,
  error,
  errorId = `${id}-error`,
  children,
  ...attributes
}: TextFieldProps) {
  return (
    <Field id={id} label={label}>
      <input
        id={id}
        class={inputClass ? `input ${inputClass}` : 'input'}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        {...attributes}
        {...(error ? { 'aria-invalid': true, 'aria-describedby': errorId } : {})}
      />
      <FieldError id={errorId} message={error} />
      {children}
    </Field>
  );
}

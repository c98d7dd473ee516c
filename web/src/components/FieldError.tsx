// What is wrong with a field or a form, in the line under it: announced as it appears
// (role="alert"), and with an id where the field names it in aria-describedby. Nothing at all
// while there is no message, so no empty alert sits in the page.
export function FieldError({ id, message }: { id?: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p id={id} class="field-error" role="alert">
      {message}
    </p>
  );
}

// @vitest-environment happy-dom
// The line that says what is wrong with a field: absent without a message, an alert with the
// field's id when there is one.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { FieldError } from './FieldError.tsx';

afterEach(cleanup);

describe('FieldError', () => {
  it('renders nothing, not an empty alert, while there is no message', () => {
    for (const message of [null, undefined, '']) {
      const { container } = render(<FieldError id="email-error" message={message} />);
      expect(container.innerHTML).toBe('');
      expect(screen.queryByRole('alert')).toBeNull();
      cleanup();
    }
  });

  it('says the message as an alert under the id the field points to', () => {
    render(<FieldError id="email-error" message="Enter your e-mail address." />);
    const line = screen.getByRole('alert');
    expect(line.outerHTML).toBe('<p id="email-error" class="field-error" role="alert">Enter your e-mail address.</p>');
  });

  it('has no id attribute when the field names none', () => {
    render(<FieldError message="Could not save." />);
    expect(screen.getByRole('alert').hasAttribute('id')).toBe(false);
  });
});

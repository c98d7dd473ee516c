// @vitest-environment happy-dom
// A labelled text input: the label names it, typing reports the value, and an error marks it
// invalid and describes it by the line that says the error, under the default or a given id.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TextField } from './TextField.tsx';

afterEach(cleanup);

describe('TextField', () => {
  it('is named by its label and reports what is typed', () => {
    const onValue = vi.fn();
    render(<TextField id="email" label="E-mail" type="email" value="" onValue={onValue} />);
    const input = screen.getByRole('textbox', { name: 'E-mail' });
    expect(input.getAttribute('class')).toBe('input');
    fireEvent.input(input, { target: { value: 'ada@example.com' } });
    expect(onValue).toHaveBeenCalledWith('ada@example.com');
  });

  it('without an error is neither invalid nor described by an error line', () => {
    render(<TextField id="email" label="E-mail" value="" onValue={() => {}} aria-describedby="email-hint" />);
    const input = screen.getByRole('textbox', { name: 'E-mail' });
    expect(input.hasAttribute('aria-invalid')).toBe(false);
    expect(input.getAttribute('aria-describedby')).toBe('email-hint');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('with an error is invalid and described by the alert that says it', () => {
    render(
      <TextField
        id="email"
        label="E-mail"
        value="x"
        onValue={() => {}}
        aria-describedby="email-hint"
        error="Enter an e-mail address."
      />,
    );
    const input = screen.getByRole('textbox', { name: 'E-mail' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe('email-error');
    expect(screen.getByRole('alert').id).toBe('email-error');
    expect(screen.getByRole('alert').textContent).toBe('Enter an e-mail address.');
  });

  it('takes the error line id it is given, and extra input classes', () => {
    render(
      <TextField
        id="target-input"
        label="Target"
        inputClass="input-number"
        value=""
        onValue={() => {}}
        error="Too big."
        errorId="target-error"
      />,
    );
    const input = screen.getByRole('textbox', { name: 'Target' });
    expect(input.getAttribute('class')).toBe('input input-number');
    expect(input.getAttribute('aria-describedby')).toBe('target-error');
    expect(screen.getByRole('alert').id).toBe('target-error');
  });
});

// @vitest-environment happy-dom
// The one password field: a new password is judged as it is typed by the server's own rule
// (contracts/password-rule.ts), a problem shows once she pauses and clears the moment the password
// passes, "too short" waits for her to leave the field, a refusal from the server goes as soon as
// she changes the password, and the message is tied to the input and sits in a live region.
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadPasswordRule } from '#contracts/password-rule.ts';
import { PasswordField, usePasswordField, type PasswordPurpose } from './PasswordField.tsx';

let field: ReturnType<typeof usePasswordField> | undefined;

function Harness({ purpose, email }: { purpose: PasswordPurpose; email?: string }) {
  field = usePasswordField(purpose, { userInputs: email ? [email] : [] });
  return <PasswordField field={field} id="pw" label="Password" />;
}

const input = () => screen.getByLabelText('Password') as HTMLInputElement;
const message = () => document.getElementById('pw-message');
const type = (value: string) => fireEvent.input(input(), { target: { value } });

beforeAll(async () => {
  await loadPasswordRule(); // the list, as a page has it once she first types
});
afterEach(() => {
  cleanup();
  field = undefined;
});

describe('PasswordField for a new password', () => {
  it('says a common password is too common once she pauses, and clears it the moment a strong one is typed', async () => {
    render(<Harness purpose="new" />);
    expect(message()?.textContent).toMatch(/^At least 8 characters, not a common password/);
    type('password');
    await waitFor(() => expect(message()?.textContent).toMatch(/^Too common:/));
    expect(message()?.className).toBe('field-error');
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(input().getAttribute('aria-describedby')).toBe('pw-message');
    expect(message()?.closest('[aria-live="polite"]')).not.toBeNull();
    type('password lamp river orbit');
    // At once, without waiting for a pause.
    expect(message()?.textContent).toBe('Long enough, and not on the lists of common passwords.');
    expect(message()?.className).toBe('field-ok');
    expect(input().getAttribute('aria-invalid')).toBeNull();
  });

  it('counts the e-mail address as known words, as the server does', async () => {
    render(<Harness purpose="new" email="mira.lindqvist@example.com" />);
    type('lindqvist2024');
    await waitFor(() => expect(message()?.textContent).toMatch(/^Too common:/));
  });

  it('keeps "too short" as a hint while she types, and says it once she leaves the field', async () => {
    render(<Harness purpose="new" />);
    type('lamp');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(message()?.className).toBe('field-hint');
    expect(input().getAttribute('aria-invalid')).toBeNull();
    fireEvent.blur(input());
    await waitFor(() => expect(message()?.textContent).toBe('Too short: use at least 8 characters.'));
  });

  it('shows a refusal from the server until the password changes, then judges the new one', async () => {
    render(<Harness purpose="new" />);
    type('violet kettle 42 harbor');
    act(() => field?.refuse('Too common: the server says so.'));
    await waitFor(() => expect(message()?.textContent).toBe('Too common: the server says so.'));
    type('violet kettle 42 harbors');
    expect(message()?.textContent).toBe('Long enough, and not on the lists of common passwords.');
  });

  it('refuses on submit what the rule refuses, and an empty password', async () => {
    render(<Harness purpose="new" />);
    expect(await field?.check()).toBe('Enter your password.');
    type('12345678');
    expect(await field?.check()).toMatch(/^Too common:/);
    type('é'.repeat(37));
    expect(await field?.check()).toMatch(/^Too long:/);
    type('quiet lantern 7 meadow');
    expect(await field?.check()).toBeNull();
  });
});

describe('PasswordField for a password she proves', () => {
  it('never judges it, asks only that it is there, and drops a refusal as she types', async () => {
    render(<Harness purpose="current" />);
    expect(input().getAttribute('autocomplete')).toBe('current-password');
    type('password');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(message()).toBeNull();
    expect(await field?.check()).toBeNull();
    act(() => field?.refuse('Your current password is not right.'));
    await waitFor(() => expect(message()?.className).toBe('field-error'));
    type('password2');
    expect(message()).toBeNull();
  });
});

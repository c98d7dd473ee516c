// @vitest-environment happy-dom
// The sign-up form words a refused password by the backend's reasons, as the account screens do,
// and the log-in form offers "Forgot password?".
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';

vi.mock('../../state/auth.ts', () => ({
  signIn: vi.fn(() =>
    Promise.reject(new ApiError(400, 'weak_password', 'Password is known to be weak', { reasons: ['pwned'] })),
  ),
  isRegistered: vi.fn(() => Promise.resolve(true)),
}));

const { default: WelcomePage } = await import('./WelcomePage.tsx');

afterEach(cleanup);

describe('WelcomePage and weak passwords', () => {
  it('says a common password is too common, in the password field', async () => {
    render(<WelcomePage initialMode="signup" />);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'mira@example.com' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create my account' }));
    const error = await screen.findByRole('alert');
    expect(error.id).toBe('password-error');
    expect(error.textContent).toMatch(/^Too common: this password is on the lists attackers try first/);
  });

  it('offers "Forgot password?" when logging in, not when signing up', () => {
    render(<WelcomePage initialMode="login" />);
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot-password');
    fireEvent.click(screen.getByRole('tab', { name: 'Create account' }));
    expect(screen.queryByRole('link', { name: 'Forgot password?' })).toBeNull();
  });
});

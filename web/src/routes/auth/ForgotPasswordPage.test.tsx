// @vitest-environment happy-dom
// "Forgot password?" and "Set a new password": the same answer for every address (no telling who
// has an account), a mailed link where the server sends mail and the person who runs it where it
// does not, focus on the outcome, a failed link said first, and a refused new password worded by
// its reasons; offline says nothing changed.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { LocationProvider } from 'preact-iso';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';

const calls = vi.hoisted(() => ({
  requestPasswordReset: vi.fn<(email: string) => Promise<void>>(),
  setNewPassword: vi.fn<(password: string) => Promise<void>>(),
}));
vi.mock('../../state/account.ts', () => calls);
const server = vi.hoisted(() => ({ sendsMail: true as boolean | undefined }));
vi.mock('../../lib/client-config.ts', () => ({
  clientConfig: () => Promise.resolve({ backend_url: '/__backend', anon_key: 'anon', sends_mail: server.sendsMail }),
}));

const { default: ForgotPasswordPage } = await import('./ForgotPasswordPage.tsx');
const { default: SetPasswordPage } = await import('./SetPasswordPage.tsx');
const { authLinkOutcome } = await import('../../state/auth-link.ts');

beforeEach(() => {
  server.sendsMail = true;
  calls.requestPasswordReset.mockReset().mockResolvedValue(undefined);
  calls.setNewPassword.mockReset().mockResolvedValue(undefined);
});
afterEach(cleanup);

describe('ForgotPasswordPage', () => {
  it('asks the backend and says the same thing whether or not the address has an account, with focus on it', async () => {
    render(<ForgotPasswordPage />);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: ' ada@example.com ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    const sent = await screen.findByText(/If an account exists for ada@example.com, we sent a link/);
    expect(calls.requestPasswordReset).toHaveBeenCalledWith('ada@example.com');
    await waitFor(() => expect(document.activeElement).toBe(sent.closest('[tabindex="-1"]')));
    expect(sent.closest('[aria-live]')).not.toBeNull();
  });

  it('says, where the server sends no mail, that the link waits with whoever runs it, for every address alike', async () => {
    server.sendsMail = false;
    render(<ForgotPasswordPage />);
    expect((await screen.findByText(/This server sends no e-mail/)).textContent).toMatch(
      /the person who runs this studyhall server/,
    );
    const answers: string[] = [];
    for (const address of ['ada@example.com', 'nobody@example.com']) {
      fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: address } });
      fireEvent.click(screen.getByRole('button', { name: 'Ask for a reset link' }));
      const said = await screen.findByText(new RegExp(`^If an account exists for ${address}`));
      answers.push((said.textContent ?? '').replace(address, '<address>'));
    }
    expect(answers[0]).toBe(
      'If an account exists for <address>, its reset link is now waiting on this server. Ask the person who runs this studyhall server for it, and open it within an hour.',
    );
    expect(answers[1]).toBe(answers[0]);
    expect(screen.queryByText(/we sent a link/)).toBeNull();
  });

  it('refuses a malformed address without asking the backend', async () => {
    render(<ForgotPasswordPage />);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'ada' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/like name@example.com/);
    expect(calls.requestPasswordReset).not.toHaveBeenCalled();
  });

  it('says when the server cannot be reached', async () => {
    calls.requestPasswordReset.mockRejectedValue(new ApiError(0, 'offline', 'x'));
    render(<ForgotPasswordPage />);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect((await screen.findByText(/cannot be reached/)).textContent).toMatch(/Nothing was changed/);
    expect(screen.queryByText(/we sent a link/)).toBeNull();
  });

  it('says first why a followed link failed', () => {
    render(<ForgotPasswordPage problem="This link has expired or was already used." />);
    expect(screen.getByRole('alert').textContent).toMatch(/expired or was already used.*Ask for a new one/);
  });
});

describe('SetPasswordPage', () => {
  const renderPage = () =>
    render(
      <LocationProvider>
        <SetPasswordPage />
      </LocationProvider>,
    );

  it('refuses a common password with the reason, in the field', async () => {
    calls.setNewPassword.mockRejectedValue(new ApiError(422, 'weak_password', 'weak', { reasons: ['pwned'] }));
    renderPage();
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save my new password' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/^Too common/);
    expect(screen.getByLabelText('New password').getAttribute('aria-invalid')).toBe('true');
  });

  it('refuses a short password before asking, and saves a good one, leaving the recovery screen', async () => {
    authLinkOutcome.value = { kind: 'recovery' };
    renderPage();
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save my new password' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/Too short/);
    expect(calls.setNewPassword).not.toHaveBeenCalled();
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'quiet lantern 7 meadow' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save my new password' }));
    await waitFor(() => expect(authLinkOutcome.value).toBeNull());
    expect(calls.setNewPassword).toHaveBeenCalledWith('quiet lantern 7 meadow');
  });
});

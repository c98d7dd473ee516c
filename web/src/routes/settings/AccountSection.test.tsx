// @vitest-environment happy-dom
// Settings' account section: changing the password refuses a wrong current one and a weak new one
// in their fields, says a change worked with focus on the message; changing the e-mail says that
// both addresses were sent a confirmation, and what the first confirmation did; deleting asks for
// the database's word and her password, says the group hand-over rule first, stays refused until
// the word is typed, says a wrong password in its field, and lands on `/` once deleted; a failure
// while signing out everywhere says she is still signed in.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { LocationProvider, useLocation } from 'preact-iso';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';
import type * as AccountModule from '../../state/account.ts';

type AccountState = typeof AccountModule;

const calls = vi.hoisted(() => ({
  changePassword: vi.fn<(current: string, next: string) => Promise<void>>(),
  changeEmail: vi.fn<(email: string) => Promise<void>>(),
  signOutEverywhere: vi.fn<() => Promise<void>>(),
  exportMyData: vi.fn<() => Promise<Blob>>(),
  deleteMyAccount: vi.fn<(word: string, password: string) => Promise<void>>(),
}));
vi.mock('../../state/account.ts', async (original) => ({
  ...(await original<AccountState>()),
  ...calls,
}));

const { AccountSection } = await import('./AccountSection.tsx');
const { DeleteAccount } = await import('./DeleteAccount.tsx');
const { account, profile } = await import('../../state/signals.ts');
const { authLinkOutcome } = await import('../../state/auth-link.ts');

beforeEach(() => {
  for (const call of Object.values(calls)) call.mockReset();
  account.value = { userId: 'u-1', email: 'mira@example.com' };
  profile.value = { handle: 'mira', displayName: null, avatarUrl: null };
  // happy-dom has no <dialog> methods.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
});
afterEach(cleanup);

describe('AccountSection', () => {
  const fillPassword = (current: string, next: string) => {
    fireEvent.input(screen.getByLabelText('Current password'), { target: { value: current } });
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: next } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
  };

  it('refuses a wrong current password and a common new one in their fields', async () => {
    render(<AccountSection />);
    calls.changePassword.mockRejectedValueOnce(new ApiError(400, 'invalid_credentials', 'x'));
    fillPassword('wrong one', 'copper orchard 19 tide');
    expect((await screen.findByText('Your current password is not right.')).id).toBe('current-password-message');
    calls.changePassword.mockRejectedValueOnce(new ApiError(422, 'weak_password', 'x', { reasons: ['length'] }));
    fillPassword('right one', 'copper orchard 19 tides');
    expect((await screen.findByText(/^Too short/)).id).toBe('changed-password-message');
    // The app's own check of the same rule refuses a common one before asking the server.
    fillPassword('right one', 'password');
    expect((await screen.findByRole('alert')).textContent).toMatch(/^Too common/);
    expect(calls.changePassword).toHaveBeenCalledTimes(2);
  });

  it('says the password changed, with focus on the message, and empties the fields', async () => {
    calls.changePassword.mockResolvedValue(undefined);
    render(<AccountSection />);
    fillPassword('right one', 'copper orchard 19 tide');
    const done = await screen.findByText(/^Password changed/);
    expect(calls.changePassword).toHaveBeenCalledWith('right one', 'copper orchard 19 tide');
    await waitFor(() => expect(document.activeElement).toBe(done.closest('[tabindex="-1"]')));
    expect((screen.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
  });

  it('says where the e-mail confirmation went', async () => {
    calls.changeEmail.mockResolvedValue(undefined);
    render(<AccountSection />);
    fireEvent.input(screen.getByLabelText('New e-mail address'), { target: { value: 'mira@school.example' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(
      (await screen.findByText(/We sent a confirmation link to mira@school.example and one to mira@example.com/))
        .textContent,
    ).toMatch(/once you have opened both; until then, keep using mira@example.com/);
  });

  it('says, back from the first confirmation link, that the other address must confirm too', async () => {
    authLinkOutcome.value = { kind: 'email-half-confirmed' };
    render(<AccountSection />);
    expect(
      await screen.findByText(/^One address is confirmed\. Open the link sent to the other address too/),
    ).toBeTruthy();
    expect(authLinkOutcome.value).toBeNull();
  });

  it('keeps her signed in, and says so, when signing out everywhere fails', async () => {
    calls.signOutEverywhere.mockRejectedValue(new ApiError(0, 'offline', 'x'));
    render(<AccountSection />);
    fireEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /^You are still signed in\. The server cannot be reached/,
    );
  });
});

describe('DeleteAccount', () => {
  /** The dialog where the app puts it, with the address bar shown. */
  function InApp() {
    const { path } = useLocation();
    return (
      <>
        <p data-testid="path">{path}</p>
        <DeleteAccount />
      </>
    );
  }
  const renderInApp = () => {
    history.replaceState(null, '', '/settings');
    return render(
      <LocationProvider>
        <InApp />
      </LocationProvider>,
    );
  };
  const open = () => fireEvent.click(screen.getByRole('button', { name: 'Delete my account…' }));
  const typePassword = (value: string) =>
    fireEvent.input(screen.getByLabelText('Your password'), { target: { value } });

  it('says the hand-over rule before she confirms and deletes only once her handle and password are typed', async () => {
    calls.deleteMyAccount.mockRejectedValueOnce(new ApiError(0, 'offline', 'x'));
    renderInApp();
    open();
    expect(screen.getByText(/longest-standing moderator, or else their longest-standing member/)).toBeTruthy();
    const confirm = screen.getByRole('button', { name: 'Delete my account' }) as HTMLButtonElement;
    const field = screen.getByLabelText(/to confirm/);
    expect(screen.getByText('mira').tagName).toBe('STRONG');
    expect(confirm.disabled).toBe(true);
    fireEvent.input(field, { target: { value: 'delete' } });
    expect(confirm.disabled).toBe(true);
    fireEvent.input(field, { target: { value: ' Mira ' } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    expect((await screen.findByRole('alert')).textContent).toBe('Enter your password to delete your account.');
    expect(calls.deleteMyAccount).not.toHaveBeenCalled();
    typePassword('violet kettle 42 harbor');
    fireEvent.click(confirm);
    expect((await screen.findByRole('alert')).textContent).toMatch(/cannot be reached/);
    expect(calls.deleteMyAccount).toHaveBeenCalledWith(' Mira ', 'violet kettle 42 harbor');
    await waitFor(() => expect(confirm.disabled).toBe(false));
  });

  it('says a wrong password in the password field, deleting nothing', async () => {
    calls.deleteMyAccount.mockRejectedValueOnce(new ApiError(400, 'invalid_credentials', 'x'));
    renderInApp();
    open();
    fireEvent.input(screen.getByLabelText(/to confirm/), { target: { value: 'mira' } });
    typePassword('not my password');
    fireEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    const refusal = await screen.findByRole('alert');
    expect(refusal.textContent).toBe('That is not the password of this account. Nothing was deleted.');
    expect(refusal.id).toBe('delete-password-message');
    expect(screen.getByTestId('path').textContent).toBe('/settings');
  });

  it('lands on the welcome address once the account is deleted', async () => {
    calls.deleteMyAccount.mockResolvedValueOnce(undefined);
    renderInApp();
    open();
    fireEvent.input(screen.getByLabelText(/to confirm/), { target: { value: 'mira' } });
    typePassword('violet kettle 42 harbor');
    fireEvent.click(screen.getByRole('button', { name: 'Delete my account' }));
    await waitFor(() => expect(screen.getByTestId('path').textContent).toBe('/'));
  });

  it('asks for "delete" from a student without a handle', () => {
    profile.value = { handle: null, displayName: null, avatarUrl: null };
    renderInApp();
    expect(screen.getByText('delete').tagName).toBe('STRONG');
  });
});

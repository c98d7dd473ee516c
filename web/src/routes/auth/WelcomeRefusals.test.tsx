// @vitest-environment happy-dom
// How the welcome form answers a refusal: a wrong e-mail or password gets one answer whoever the
// address belongs to, without asking the server whether it is registered; a suspended account is
// told so with the end of its suspension; a common password is said in the password field (and
// goes once she types another); and the log-in form offers "Forgot password?".
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/api.ts';

const calls = vi.hoisted(() => ({ signIn: vi.fn<(mode: string, email: string, password: string) => Promise<void>>() }));
vi.mock('../../state/auth.ts', () => calls);

const { default: WelcomePage, WRONG_CREDENTIALS } = await import('./WelcomePage.tsx');

const fetches: string[] = [];
beforeEach(() => {
  calls.signIn.mockReset();
  fetches.length = 0;
  vi.stubGlobal('fetch', (url: string) => {
    fetches.push(String(url));
    return Promise.reject(new Error('no network in this test'));
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function submit(mode: 'login' | 'signup', email: string, password: string): Promise<void> {
  fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: email } });
  fireEvent.input(screen.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(
    screen.getByRole('button', { name: mode === 'login' ? 'Log in to my account' : 'Create my account' }),
  );
  await waitFor(() => expect(calls.signIn).toHaveBeenCalled());
}

describe('WelcomePage refusals', () => {
  it('answers a wrong e-mail or password the same way for every address, and asks nothing more', async () => {
    calls.signIn.mockRejectedValue(new ApiError(401, 'invalid_credentials', 'The e-mail or password is wrong.'));
    const answers: string[] = [];
    for (const email of ['mira@example.com', 'nobody@example.com']) {
      render(<WelcomePage initialMode="login" />);
      await submit('login', email, 'not the password');
      answers.push((await screen.findByRole('alert')).textContent ?? '');
      cleanup();
    }
    expect(answers[0]).toContain(WRONG_CREDENTIALS);
    expect(answers[1]).toBe(answers[0]);
    expect(answers[0]).not.toMatch(/no account|new here|does not match/i);
    expect(fetches).toEqual([]);
  });

  it("answers a log-in the server refuses as malformed (a password too short to be anyone's) the same way", async () => {
    calls.signIn.mockRejectedValue(new ApiError(400, 'invalid_request', 'password: must be at least 8 bytes'));
    render(<WelcomePage initialMode="login" />);
    await submit('login', 'mira@example.com', 'short');
    expect((await screen.findByRole('alert')).textContent).toBe(WRONG_CREDENTIALS);
  });

  it('tells the right password of a suspended account that it is suspended, until when and whom to ask', async () => {
    const until = '2031-03-04T15:30:00.000Z';
    calls.signIn.mockRejectedValue(
      new ApiError(403, 'account_suspended', 'This account is suspended.', { banned_until: until }),
    );
    render(<WelcomePage initialMode="login" />);
    await submit('login', 'mira@example.com', 'violet kettle 42 harbor');
    const notice = await screen.findByRole('alert');
    const local = new Date(until).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
    expect(notice.textContent).toContain(`This account is suspended until ${local}`);
    expect(notice.textContent).toContain('ask the person who runs this studyhall server');
    expect(screen.queryByRole('button', { name: 'Create an account' })).toBeNull();
  });

  it('says a password the server refused in the password field, and drops it once she types another', async () => {
    calls.signIn.mockRejectedValue(
      new ApiError(400, 'weak_password', 'Password is known to be weak', { reasons: ['pwned'] }),
    );
    render(<WelcomePage initialMode="signup" />);
    // Strong by the app's own rule; the server is the last word (a hosted project may have more rules).
    await submit('signup', 'mira@example.com', 'violet kettle 42 harbor');
    await waitFor(() =>
      expect(document.getElementById('password-message')?.textContent).toMatch(
        /^Too common: this password is on the lists attackers try first/,
      ),
    );
    expect(screen.getByLabelText('Password').getAttribute('aria-describedby')).toBe('password-message');
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'violet kettle 42 harbors' } });
    expect(document.getElementById('password-message')?.textContent).not.toMatch(/Too common/);
  });

  it('does not send a password the rule refuses, and says why under the field', async () => {
    render(<WelcomePage initialMode="signup" />);
    fireEvent.input(screen.getByLabelText('E-mail'), { target: { value: 'mira@example.com' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create my account' }));
    await waitFor(() => expect(document.getElementById('password-message')?.textContent).toMatch(/^Too common/));
    expect(calls.signIn).not.toHaveBeenCalled();
    expect(document.activeElement?.id).toBe('password');
  });

  it('offers "Forgot password?" when logging in, not when signing up', () => {
    render(<WelcomePage initialMode="login" />);
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot-password');
    fireEvent.click(screen.getByRole('tab', { name: 'Create account' }));
    expect(screen.queryByRole('link', { name: 'Forgot password?' })).toBeNull();
  });
});

// @vitest-environment happy-dom
// The welcome screen's greeting and names: a device nobody signed in on is greeted as a first visit
// on "Create account", a device someone signed in on before says "Welcome back" on "Log in", and the
// mode tabs and the submit button never share an accessible name.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rememberSignedInHere } from '../../lib/session-storage.ts';
import WelcomePage from './WelcomePage.tsx';

function accessibleNames(): string[] {
  return [...screen.getAllByRole('tab'), ...screen.getAllByRole('button')].map(
    (element) => element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '',
  );
}

beforeEach(() => localStorage.clear());
afterEach(cleanup);

describe('WelcomePage', () => {
  it('greets a first visit on this device as such, on the Create account tab', () => {
    render(<WelcomePage />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome to studyhall');
    expect(screen.queryByText('Welcome back')).toBeNull();
    expect(screen.getByRole('tab', { name: 'Create account' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tab', { name: 'Log in' }).getAttribute('aria-selected')).toBe('false');
    expect(screen.getByRole('button', { name: 'Create my account' }).getAttribute('type')).toBe('submit');
  });

  it('says "Welcome back" on the Log in tab once someone has signed in on this device, even after signing out', () => {
    rememberSignedInHere();
    render(<WelcomePage />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome back');
    expect(screen.getByRole('tab', { name: 'Log in' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('button', { name: 'Log in to my account' }).getAttribute('type')).toBe('submit');
  });

  it('counts a session still stored on this device as a prior visit', () => {
    localStorage.setItem('studyhall-auth', JSON.stringify({ user: { id: 'u-1', email: 'a@example.com' } }));
    render(<WelcomePage />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Welcome back');
  });

  it('keeps the mode an invite asks for', () => {
    rememberSignedInHere();
    render(<WelcomePage initialMode="signup" />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Create your account');
    expect(screen.getByRole('tab', { name: 'Create account' }).getAttribute('aria-selected')).toBe('true');
  });

  it('gives the mode switch and the submit button different names in both modes', () => {
    render(<WelcomePage />);
    for (const mode of ['Log in', 'Create account']) {
      fireEvent.click(screen.getByRole('tab', { name: mode }));
      const names = accessibleNames();
      expect(new Set(names).size, names.join(' | ')).toBe(names.length);
      expect(screen.queryAllByRole('button', { name: mode })).toHaveLength(0);
      expect(screen.getAllByRole('tab', { name: mode })).toHaveLength(1);
    }
  });

  it('moves between the tabs with the arrow keys, and the form follows the selected tab', () => {
    render(<WelcomePage />);
    const create = screen.getByRole('tab', { name: 'Create account' });
    create.focus();
    fireEvent.keyDown(create, { key: 'ArrowLeft' });
    const login = screen.getByRole('tab', { name: 'Log in' });
    expect(login.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(login);
    expect(login.tabIndex).toBe(0);
    expect(create.tabIndex).toBe(-1);
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(login.id);
    expect(screen.getByRole('button', { name: 'Log in to my account' })).toBeTruthy();
    fireEvent.keyDown(login, { key: 'End' });
    expect(screen.getByRole('tab', { name: 'Create account' }).getAttribute('aria-selected')).toBe('true');
  });

  it('wraps the form in the tab panel, since a form may not take the tabpanel role (axe: aria-allowed-role)', () => {
    render(<WelcomePage />);
    const panel = screen.getByRole('tabpanel');
    expect(panel.tagName).not.toBe('FORM');
    expect(panel.querySelector('form')).not.toBeNull();
  });
});

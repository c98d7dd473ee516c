// @vitest-environment happy-dom
// The sidebar's sync line and the offline banner, as a student (and a screen reader) meets them:
// one live region that says "Everything is synced" only when nothing waits, "Offline · N changes
// waiting" while the server is away, and a banner that says the same words; a sign-in the server
// ended says "Signed out on this device — sign in again" at once, and its banner opens the sign-in.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { LocationProvider } from 'preact-iso';
import { afterEach, describe, expect, it } from 'vitest';
import { online, serverReachable, sessionEnded, signInAgainOpen, syncState } from '../state/signals.ts';
import { Shell } from './Shell.tsx';

afterEach(() => {
  cleanup();
  syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: true };
  online.value = true;
  serverReachable.value = true;
  sessionEnded.value = false;
  signInAgainOpen.value = false;
});

function renderShell() {
  render(
    <LocationProvider>
      <Shell>
        <p>screen</p>
      </Shell>
    </LocationProvider>,
  );
}

const lines = () => screen.getAllByRole('status').map((region) => region.textContent);

describe('the sync line', () => {
  it('says synced only when the outbox was read, is empty and the server answers', () => {
    syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: false };
    renderShell();
    expect(lines()).toEqual(['Checking for changes…', 'Checking for changes…']);
    cleanup();
    syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: true };
    renderShell();
    expect(lines()).toEqual(['Everything is synced', 'Everything is synced']);
    expect(screen.queryByTestId('offline-banner')).toBeNull();
  });

  it('says how many changes wait, and never synced, while the server is away; the banner agrees', async () => {
    syncState.value = { pending: 2, failed: 0, blockedBy: 'offline', syncing: false, known: true };
    serverReachable.value = false;
    renderShell();
    expect(lines()).toEqual(['Offline · 2 changes waiting', 'Offline · 2 changes waiting']);
    const banner = screen.getByTestId('offline-banner');
    expect(banner.textContent).toContain('Offline · 2 changes waiting.');
    expect(banner.textContent).toContain('The server is not answering.');
    expect(document.body.textContent).not.toContain('synced');
  });

  it('goes back to synced once the server answers and the outbox drained', async () => {
    syncState.value = { pending: 1, failed: 0, blockedBy: 'offline', syncing: false, known: true };
    serverReachable.value = false;
    renderShell();
    serverReachable.value = true;
    syncState.value = { pending: 1, failed: 0, blockedBy: null, syncing: true, known: true };
    await screen.findAllByText('Syncing 1 change…');
    expect(screen.queryByTestId('offline-banner')).toBeNull();
    syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: true };
    await screen.findAllByText('Everything is synced');
  });

  it('says offline when the browser has no network, even with nothing waiting', () => {
    online.value = false;
    renderShell();
    expect(lines()).toEqual(['Offline', 'Offline']);
    expect(screen.getByTestId('offline-banner').textContent).toContain('This device has no network.');
  });

  it('says signed out on this device before any change, with what waits, and the banner opens the sign-in', async () => {
    sessionEnded.value = true;
    renderShell();
    expect(lines()).toEqual(['Signed out on this device — sign in again', 'Signed out on this device — sign in again']);
    expect(screen.getByTestId('signed-out-banner').textContent).toContain(
      'Your data stays on this device; what you change waits here until you do.',
    );
    syncState.value = { pending: 1, failed: 0, blockedBy: 'signed_out', syncing: false, known: true };
    await screen.findAllByText('Signed out on this device — sign in again · 1 change waiting');
    expect(screen.getByTestId('signed-out-banner').textContent).toContain(
      '1 change made here waits on this device and is sent once you do.',
    );
    expect(document.body.textContent).not.toContain('could not sync');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in again' }));
    expect(signInAgainOpen.value).toBe(true);
    await screen.findByRole('dialog', { name: 'Sign in again' });
    expect(screen.getByRole('button', { name: 'Sign out instead' })).toBeTruthy();
  });
});

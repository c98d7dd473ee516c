// @vitest-environment happy-dom
// Changes a student makes, when this device cannot keep them: never silent. The screen where she
// acted says so, the sync line says "A change was not saved" (never "Everything is synced"), a
// banner names the change and the browser's reason, and the next change that is kept clears it.
// And a change needs no crypto.randomUUID, which plain-HTTP pages do not have.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { LocationProvider } from 'preact-iso';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Shell } from '../components/Shell.tsx';
import type { Db } from '../lib/db.ts';
import { TasksPanel } from '../routes/focus/TasksPanel.tsx';
import { addSubject } from './data.ts';
import { db, saveFailure, subjects, syncState } from './signals.ts';

/**
 * A device database that takes every write, or refuses each one as a full disk does. It reads
 * back nothing: a change's outbox entry (a subject goes to the server too) is not kept here.
 */
function deviceDb(refuse: boolean): Db {
  const put = vi.fn(async () => {
    if (refuse) throw new DOMException('The disk is full.', 'QuotaExceededError');
    return '';
  });
  return { put, get: async () => undefined, getAll: async () => [] } as unknown as Db;
}

function renderFocusSide() {
  render(
    <LocationProvider>
      <Shell>
        <TasksPanel />
      </Shell>
    </LocationProvider>,
  );
}

const lines = () => screen.getAllByRole('status').map((region) => region.textContent);

beforeEach(() => {
  syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: true };
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  db.value = null;
  saveFailure.value = null;
  subjects.value = [];
});

describe('a change this device cannot keep', () => {
  it('is said under the field, on the sync line and in a banner, and the title stays to try again', async () => {
    db.value = deviceDb(true);
    renderFocusSide();
    expect(lines()).toEqual(['Everything is synced', 'Everything is synced']);

    fireEvent.input(screen.getByLabelText('Add a task for today'), { target: { value: 'Optics notes' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add task' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Not saved on this device. Try again; if it keeps failing, reload the page.');
    expect(lines()).toEqual(['A change was not saved', 'A change was not saved']);
    const banner = screen.getByTestId('not-saved-banner');
    expect(banner.textContent).toContain('Not saved on this device: the task “Optics notes”.');
    expect(banner.textContent).toContain('The browser said: The disk is full.');
    expect(document.body.textContent).not.toContain('synced');
    expect((screen.getByLabelText('Add a task for today') as HTMLInputElement).value).toBe('Optics notes');
  });

  it('is said before offline: the server being away changes nothing about the device', () => {
    saveFailure.value = { what: 'the study session', reason: 'The disk is full.' };
    syncState.value = { pending: 2, failed: 0, blockedBy: 'offline', syncing: false, known: true };
    renderFocusSide();
    expect(lines()).toEqual(['A change was not saved', 'A change was not saved']);
    expect(screen.getByTestId('offline-banner').textContent).toContain('Offline.');
    expect(screen.getByTestId('not-saved-banner').textContent).toContain('the study session');
  });

  it('is cleared by the next change the device keeps', async () => {
    saveFailure.value = { what: 'the task “Optics notes”', reason: 'The disk is full.' };
    db.value = deviceDb(false);
    renderFocusSide();
    expect(lines()).toEqual(['A change was not saved', 'A change was not saved']);
    await addSubject('Physics');
    await waitFor(() => expect(lines()).toEqual(['Everything is synced', 'Everything is synced']));
    expect(screen.queryByTestId('not-saved-banner')).toBeNull();
  });

  it('is named the same way when the thing that failed was the id, not the write', async () => {
    db.value = deviceDb(false);
    vi.stubGlobal('crypto', {
      getRandomValues: () => {
        throw new Error('no randomness');
      },
    });
    await expect(addSubject('Physics')).rejects.toThrow('no randomness');
    expect(saveFailure.value).toEqual({ what: 'the subject “Physics”', reason: 'no randomness' });
    expect(subjects.value).toEqual([]);
  });
});

describe('a change on a page without crypto.randomUUID (plain HTTP)', () => {
  it('is kept, with a uuid for its id', async () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => real.getRandomValues(bytes) });
    expect('randomUUID' in globalThis.crypto).toBe(false);
    db.value = deviceDb(false);
    const subject = await addSubject('Physics');
    expect(subject.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(subjects.value.map((item) => item.name)).toEqual(['Physics']);
    expect(saveFailure.value).toBeNull();
  });
});

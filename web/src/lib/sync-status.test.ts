// The sync line: never "synced" while a change was not kept on this device, waits, was refused, the
// server is away or the server ended this device's sign-in.
import { describe, expect, it } from 'vitest';
import { describeSync, type SyncFacts } from './sync-status.ts';

const calm: SyncFacts = {
  pending: 0,
  failed: 0,
  blockedBy: null,
  syncing: false,
  known: true,
  online: true,
  serverReachable: true,
  unsaved: false,
  signedOut: false,
};

describe('describeSync', () => {
  it('says synced only when nothing waits, nothing failed and the server answers', () => {
    expect(describeSync(calm)).toEqual({ tone: 'ok', text: 'Everything is synced', offline: false });
  });

  it('says offline with the number waiting when the network or the server is away', () => {
    expect(describeSync({ ...calm, online: false, pending: 2 })).toMatchObject({
      text: 'Offline · 2 changes waiting',
      offline: true,
    });
    expect(describeSync({ ...calm, serverReachable: false, pending: 1 }).text).toBe('Offline · 1 change waiting');
    expect(describeSync({ ...calm, blockedBy: 'offline', pending: 1 }).text).toBe('Offline · 1 change waiting');
    expect(describeSync({ ...calm, serverReachable: false })).toMatchObject({ text: 'Offline', tone: 'offline' });
  });

  it('never says synced while a change waits or was refused, in any state', () => {
    for (const pending of [0, 1, 3])
      for (const failed of [0, 1])
        for (const blockedBy of [null, 'offline', 'signed_out', 'http_502'])
          for (const syncing of [false, true])
            for (const online of [false, true])
              for (const serverReachable of [false, true])
                for (const unsaved of [false, true])
                  for (const signedOut of [false, true]) {
                    const line = describeSync({
                      pending,
                      failed,
                      blockedBy,
                      syncing,
                      known: true,
                      online,
                      serverReachable,
                      unsaved,
                      signedOut,
                    });
                    const calmNow =
                      !unsaved &&
                      !signedOut &&
                      pending === 0 &&
                      failed === 0 &&
                      online &&
                      serverReachable &&
                      blockedBy !== 'offline';
                    expect(line.text === 'Everything is synced', JSON.stringify(line)).toBe(calmNow);
                    expect(line.text.includes('synced'), JSON.stringify(line)).toBe(calmNow);
                    if (unsaved) expect(line.text).toBe('A change was not saved');
                    else if (pending > 0) expect(line.text).toMatch(/waiting|Syncing/);
                  }
  });

  it('says first that a change was not saved on this device, and still whether the server is away', () => {
    expect(describeSync({ ...calm, unsaved: true })).toEqual({
      tone: 'danger',
      text: 'A change was not saved',
      offline: false,
    });
    expect(describeSync({ ...calm, unsaved: true, online: false, pending: 2 })).toEqual({
      tone: 'danger',
      text: 'A change was not saved',
      offline: true,
    });
    expect(describeSync({ ...calm, unsaved: true, known: false }).text).toBe('A change was not saved');
  });

  it('does not say synced before the outbox was read (a page that just opened)', () => {
    expect(describeSync({ ...calm, known: false })).toEqual({
      tone: 'busy',
      text: 'Checking for changes…',
      offline: false,
    });
    expect(describeSync({ ...calm, known: false, online: false }).text).toBe('Offline');
  });

  it('says a sign-in the server ended at once, before any change waits, and with what waits', () => {
    expect(describeSync({ ...calm, signedOut: true })).toEqual({
      tone: 'waiting',
      text: 'Signed out on this device — sign in again',
      offline: false,
    });
    expect(describeSync({ ...calm, signedOut: true, pending: 1 }).text).toBe(
      'Signed out on this device — sign in again · 1 change waiting',
    );
    // Never "could not sync" for changes that only wait for her sign-in.
    expect(describeSync({ ...calm, signedOut: true, pending: 1, failed: 1 }).text).toBe(
      'Signed out on this device — sign in again · 1 change waiting',
    );
    expect(describeSync({ ...calm, signedOut: true, known: false }).text).toBe(
      'Signed out on this device — sign in again',
    );
    // Offline says offline: signing in needs the server.
    expect(describeSync({ ...calm, signedOut: true, online: false }).text).toBe('Offline');
  });

  it('names a refusal, a sign-in that is needed and a troubled server', () => {
    expect(describeSync({ ...calm, failed: 1 })).toMatchObject({ tone: 'danger', text: '1 change could not sync' });
    expect(describeSync({ ...calm, pending: 2, blockedBy: 'signed_out' }).text).toBe(
      'Signed out on this device — sign in again · 2 changes waiting',
    );
    expect(describeSync({ ...calm, pending: 2, blockedBy: 'http_502' }).text).toBe(
      'Server trouble · 2 changes waiting',
    );
    expect(describeSync({ ...calm, pending: 2, syncing: true }).text).toBe('Syncing 2 changes…');
  });
});

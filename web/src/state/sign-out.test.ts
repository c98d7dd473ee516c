// Signing out tells the backend the student is offline before the session ends (the heartbeat
// needs the token), and ends the session even when that goodbye fails.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const steps: string[] = [];
const presence = vi.hoisted(() => ({ fail: false }));

vi.mock('./presence.ts', () => ({
  stopPresence: async () => {
    steps.push('stopPresence');
    if (presence.fail) throw new Error('the heartbeat could not be sent');
  },
}));
vi.mock('./auth.ts', () => ({
  endSession: async () => {
    steps.push('endSession');
  },
}));

const { signOut } = await import('./sign-out.ts');

describe('signOut', () => {
  beforeEach(() => {
    steps.length = 0;
    presence.fail = false;
  });

  it('stops presence first, while the token still works, then ends the session', async () => {
    await signOut();
    expect(steps).toEqual(['stopPresence', 'endSession']);
  });

  it('still ends the session when presence could not say goodbye', async () => {
    presence.fail = true;
    await expect(signOut()).resolves.toBeUndefined();
    expect(steps).toEqual(['stopPresence', 'endSession']);
  });
});

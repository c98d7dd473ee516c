// @vitest-environment happy-dom
// "Allow notifications on this device" when no push service answers: after ten seconds the
// button comes back with a sentence saying what happened, and pressing it again tries again.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Push from '../../lib/community/push.ts';

const calls = vi.hoisted(() => ({ enable: 0 }));

vi.mock('../../lib/community/alerts.ts', () => ({
  browserOffsetMinutes: () => 0,
  readQuietHours: async () => ({ start: null, end: null }),
  saveQuietHours: async () => undefined,
}));
vi.mock('../../lib/community/push.ts', async (importActual) => {
  const actual = await importActual<typeof Push>();
  return {
    ...actual,
    deviceAlerts: async () => 'off',
    // What enableDeviceAlerts does with a push service that never answers.
    enableDeviceAlerts: () => {
      calls.enable += 1;
      return actual.withinTime(
        new Promise(() => undefined),
        actual.PUSH_ANSWER_TIMEOUT_MS,
        "The browser's push service",
      );
    },
  };
});

const { StartAlertsCard } = await import('./StartAlertsCard.tsx');

beforeEach(() => {
  calls.enable = 0;
  vi.useFakeTimers({ shouldAdvanceTime: true });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('StartAlertsCard', () => {
  it('gives the button back with a clear error after 10 s without a push service, and tries again', async () => {
    render(<StartAlertsCard />);
    const allow = await screen.findByRole('button', { name: 'Allow notifications on this device' });
    fireEvent.click(allow);
    await screen.findByRole('button', { name: 'Working…' });
    await vi.advanceTimersByTimeAsync(9_000);
    expect(screen.getByRole('button', { name: 'Working…' })).toBeTruthy();
    await vi.advanceTimersByTimeAsync(1_500);
    const back = await screen.findByRole('button', { name: 'Allow notifications on this device' });
    expect((back as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByRole('alert').textContent).toMatch(
      /^The browser's push service did not answer within 10 seconds, so notifications are not on\. Check the connection and try again/,
    );
    fireEvent.click(back);
    await screen.findByRole('button', { name: 'Working…' });
    expect(calls.enable).toBe(2);
  });
});

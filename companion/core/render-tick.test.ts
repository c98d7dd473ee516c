// The render tick: every 40 ms the time shown is completionAtMs minus the clock, so a clock that
// moves (or a tick that comes late) shows the true remaining time, never a drifting countdown.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatRemaining, remainingMsAt, RENDER_TICK_MS, startRenderTick } from './render-tick.ts';
import { idleSnapshot, runningSnapshot } from './test-snapshots.ts';

const START = Date.UTC(2026, 10, 23, 9, 0, 0);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

describe('remainingMsAt', () => {
  it('is completionAtMs minus now while the timer runs, never below zero', () => {
    const snapshot = runningSnapshot(START + 90_000, { remainingMs: 1 });
    expect(remainingMsAt(snapshot, START)).toBe(90_000);
    expect(remainingMsAt(snapshot, START + 89_960)).toBe(40);
    expect(remainingMsAt(snapshot, START + 120_000)).toBe(0);
  });

  it('is the frozen remainingMs when paused or idle', () => {
    expect(remainingMsAt(runningSnapshot(START + 90_000, { running: false, remainingMs: 42_000 }), START + 5_000)).toBe(
      42_000,
    );
    expect(remainingMsAt(idleSnapshot(), START)).toBe(0);
  });
});

describe('the 40 ms render tick', () => {
  it('renders at once and then every 40 ms', () => {
    const renderedAt: number[] = [];
    const stop = startRenderTick((now) => renderedAt.push(now - START));
    vi.advanceTimersByTime(200);
    stop();
    vi.advanceTimersByTime(200);
    expect(RENDER_TICK_MS).toBe(40);
    expect(renderedAt).toEqual([0, 40, 80, 120, 160, 200]);
  });

  it('follows the clock, not a count of ticks: a jump in time shows at the next tick', () => {
    const snapshot = runningSnapshot(START + 600_000);
    const shown: string[] = [];
    const stop = startRenderTick((now) => shown.push(formatRemaining(remainingMsAt(snapshot, now))));
    expect(shown.at(-1)).toBe('10:00');
    vi.advanceTimersByTime(1_000);
    expect(shown.at(-1)).toBe('09:59');
    // The phone slept for 2 minutes without ticking: the next tick is right, not 2 minutes behind.
    vi.setSystemTime(Date.now() + 120_000);
    vi.advanceTimersByTime(40);
    expect(shown.at(-1)).toBe('07:59');
    stop();
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '00:00'],
    [1, '00:01'],
    [999, '00:01'],
    [1_000, '00:01'],
    [1_001, '00:02'],
    [59_000, '00:59'],
    [1_500_000, '25:00'],
    [1_499_200, '25:00'],
    [3_600_000, '1:00:00'],
    [3_661_000, '1:01:01'],
    [-5, '00:00'],
  ])('shows %i ms as %s', (ms, text) => expect(formatRemaining(ms)).toBe(text));
});

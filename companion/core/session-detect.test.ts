// Session detection: AUTO_POLL_MS = 5000, used only to notice a session start and launch the overlay.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StateAnswer } from './pip-client.ts';
import { AUTO_POLL_MS, isSessionStart, watchForSessionStart } from './session-detect.ts';
import { idleSnapshot, runningSnapshot } from './test-snapshots.ts';

const START = Date.UTC(2026, 10, 23, 9, 0, 0);
const running: StateAnswer = { kind: 'snapshot', snapshot: runningSnapshot(START + 1_500_000) };
const idle: StateAnswer = { kind: 'snapshot', snapshot: idleSnapshot() };
const paused: StateAnswer = { kind: 'snapshot', snapshot: runningSnapshot(START + 1_500_000, { running: false }) };
const down: StateAnswer = { kind: 'unreachable', message: 'down' };

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

function watch(answers: StateAnswer[]) {
  const askedAt: number[] = [];
  const startedAt: number[] = [];
  let index = 0;
  const stop = watchForSessionStart({
    getState: async () => {
      askedAt.push(Date.now() - START);
      return answers[Math.min(index++, answers.length - 1)] as StateAnswer;
    },
    onSessionStart: () => startedAt.push(Date.now() - START),
  });
  return { askedAt, startedAt, stop };
}

describe('session detection', () => {
  it('asks every 5000 ms', async () => {
    const { askedAt, stop } = watch([idle]);
    await vi.advanceTimersByTimeAsync(15_000);
    stop();
    expect(AUTO_POLL_MS).toBe(5_000);
    expect(askedAt).toEqual([0, 5_000, 10_000, 15_000]);
  });

  it('reports a start once, when the timer goes from not running to running', async () => {
    const { startedAt, stop } = watch([idle, idle, running, running, running]);
    await vi.advanceTimersByTimeAsync(20_000);
    stop();
    expect(startedAt).toEqual([10_000]);
  });

  it('reports a session that already runs on the first answer (the app opened mid-session)', async () => {
    const { startedAt, stop } = watch([running]);
    await vi.advanceTimersByTimeAsync(10_000);
    stop();
    expect(startedAt).toEqual([0]);
  });

  it('reports a new start after a pause, and ignores failures in between', async () => {
    const { startedAt, stop } = watch([running, paused, down, running]);
    await vi.advanceTimersByTimeAsync(20_000);
    stop();
    expect(startedAt).toEqual([0, 15_000]);
  });

  it('asks nothing after stop', async () => {
    const { askedAt, stop } = watch([idle]);
    await vi.advanceTimersByTimeAsync(5_000);
    stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(askedAt).toEqual([0, 5_000]);
  });

  it('does not count an idle phase as a session even if marked running', () => {
    expect(isSessionStart(undefined, idleSnapshot({ running: true }))).toBe(false);
  });
});

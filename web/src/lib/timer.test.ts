// The timer maths: the remaining time is always completionAtMs - now, so a reload, a sleeping
// laptop or a throttled tab lands exactly where an always-awake page would be.
import { describe, expect, it } from 'vitest';
import {
  advance,
  countAttempt,
  focusedMs,
  idleTimer,
  pause,
  progress,
  remainingMs,
  resume,
  settledMinutes,
  start,
  undoAttempt,
} from './timer.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const settings = { focusMinutes: 25, breakMinutes: 5, cycles: 3 };

describe('a running focus phase', () => {
  it('counts down from completionAtMs, not from ticks', () => {
    const running = start(idleTimer(settings), T0);
    expect(running.completionAtMs).toBe(T0 + 25 * MIN);
    expect(remainingMs(running, T0)).toBe(25 * MIN);
    expect(remainingMs(running, T0 + 10 * MIN + 500)).toBe(15 * MIN - 500);
    expect(progress(running, T0 + 12.5 * MIN)).toBeCloseTo(0.5);
  });

  it('survives a reload: the stored state (JSON) gives the same remaining time at the same instant', () => {
    const running = start(idleTimer(settings), T0);
    const reloaded = JSON.parse(JSON.stringify(running));
    expect(remainingMs(reloaded, T0 + 7 * MIN)).toBe(remainingMs(running, T0 + 7 * MIN));
  });

  it('pauses with what is left and resumes with a new completion instant', () => {
    const paused = pause(start(idleTimer(settings), T0), T0 + 10 * MIN);
    expect(paused.running).toBe(false);
    expect(paused.completionAtMs).toBeNull();
    expect(remainingMs(paused, T0 + 60 * MIN)).toBe(15 * MIN); // time stands still while paused
    const resumed = resume(paused, T0 + 60 * MIN);
    expect(resumed.completionAtMs).toBe(T0 + 75 * MIN);
    expect(focusedMs(resumed, T0 + 70 * MIN)).toBe(20 * MIN);
  });
});

describe('across a simulated sleep', () => {
  it('after 27 minutes asleep it is 2 minutes into the first break, which began when the focus ended', () => {
    const woke = advance(start(idleTimer(settings), T0), T0 + 27 * MIN);
    expect(woke.phase).toBe('break');
    expect(woke.cycle).toBe(1);
    expect(woke.completionAtMs).toBe(T0 + 25 * MIN + 5 * MIN);
    expect(remainingMs(woke, T0 + 27 * MIN)).toBe(3 * MIN);
    expect(focusedMs(woke, T0 + 27 * MIN)).toBe(25 * MIN); // a break adds no focus time
    expect(advance(woke, T0 + 27 * MIN)).toBe(woke); // advance is idempotent at one instant
  });

  it('walks every phase a long sleep skipped, each starting when the previous ended', () => {
    const woke = advance(start(idleTimer(settings), T0), T0 + 42 * MIN);
    // focus 0-25, break 25-30, focus 30-55: at 42 it is focus 2 with 13 minutes left
    expect(woke.phase).toBe('focus');
    expect(woke.cycle).toBe(2);
    expect(remainingMs(woke, T0 + 42 * MIN)).toBe(13 * MIN);
    expect(focusedMs(woke, T0 + 42 * MIN)).toBe(25 * MIN + 12 * MIN);
  });

  it('ends the session after the last focus phase, however long the sleep, and settles its minutes', () => {
    const woke = advance(start(idleTimer(settings), T0), T0 + 8 * 60 * MIN);
    expect(woke.complete).toBe(true);
    expect(woke.running).toBe(false);
    expect(remainingMs(woke, T0 + 8 * 60 * MIN)).toBe(0);
    expect(settledMinutes(woke, T0 + 8 * 60 * MIN)).toBe(3 * 25);
  });

  it('gives the same state whether the page ticked every second or slept through', () => {
    let ticking = start(idleTimer(settings), T0);
    for (let now = T0; now <= T0 + 50 * MIN; now += 1000) ticking = advance(ticking, now);
    const slept = advance(start(idleTimer(settings), T0), T0 + 50 * MIN);
    expect(slept).toEqual(ticking);
  });
});

describe('attempts', () => {
  it('counts, and undoes the latest count first', () => {
    let state = idleTimer(settings);
    state = countAttempt(countAttempt(countAttempt(state, 'correct'), 'skip'), 'correct');
    expect(state.attempts).toEqual({ correct: 2, incorrect: 0, skipped: 1 });
    state = undoAttempt(state);
    expect(state.attempts).toEqual({ correct: 1, incorrect: 0, skipped: 1 });
    state = undoAttempt(undoAttempt(state));
    expect(state.attempts).toEqual({ correct: 0, incorrect: 0, skipped: 0 });
    expect(undoAttempt(state)).toBe(state);
  });
});

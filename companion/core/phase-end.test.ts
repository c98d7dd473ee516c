// The phone's phase-end announcement: once per end, by the phone's own clock, never for a pause
// before the end or an end it slept through.
import { describe, expect, it } from 'vitest';
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';
import { PhaseEndWatcher, STALE_PHASE_END_MS } from './phase-end.ts';

const T0 = 1_764_000_000_000;

function snap(phase: TimerSnapshot['phase'], completionAtMs: number | null): TimerSnapshot {
  return {
    phase,
    running: completionAtMs !== null,
    remainingMs: 0,
    completionAtMs,
    subject: null,
    task: null,
    attempts: { correct: 0, incorrect: 0, skipped: 0 },
    target: null,
    updatedAt: T0,
  };
}

describe('PhaseEndWatcher', () => {
  it('announces the focus end once, when the phone clock passes it', () => {
    const watcher = new PhaseEndWatcher();
    const focus = snap('focus', T0 + 1000);
    expect(watcher.check(focus, T0)).toBeNull();
    expect(watcher.check(focus, T0 + 999)).toBeNull();
    expect(watcher.check(focus, T0 + 1000)).toEqual({ phase: 'focus', endedAtMs: T0 + 1000 });
    expect(watcher.check(focus, T0 + 1040)).toBeNull();
    // The page's break snapshot arrives: nothing new to say.
    expect(watcher.check(snap('break', T0 + 301_000), T0 + 1500)).toBeNull();
    expect(watcher.check(snap('break', T0 + 301_000), T0 + 301_000)).toEqual({
      phase: 'break',
      endedAtMs: T0 + 301_000,
    });
  });

  it('announces an end the page moved past before the phone ticked', () => {
    const watcher = new PhaseEndWatcher();
    watcher.check(snap('focus', T0 + 1000), T0);
    expect(watcher.check(snap('break', T0 + 301_000), T0 + 1200)).toEqual({ phase: 'focus', endedAtMs: T0 + 1000 });
  });

  it('says nothing for a pause before the end, an idle page, or an end long past', () => {
    const watcher = new PhaseEndWatcher();
    watcher.check(snap('focus', T0 + 1000), T0);
    expect(watcher.check(snap('focus', null), T0 + 500)).toBeNull();
    expect(watcher.check(snap('focus', null), T0 + 5000)).toBeNull();
    expect(watcher.check(snap('idle', null), T0 + 5000)).toBeNull();
    expect(watcher.check(snap('focus', T0), T0 + STALE_PHASE_END_MS + 1)).toBeNull();
    expect(watcher.check(undefined, T0 + STALE_PHASE_END_MS + 2)).toBeNull();
  });
});

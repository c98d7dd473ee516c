// Snapshots for the core tests, shaped as GET /api/pip/state answers them.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';

export function runningSnapshot(completionAtMs: number, overrides: Partial<TimerSnapshot> = {}): TimerSnapshot {
  return {
    phase: 'focus',
    running: true,
    remainingMs: 1_500_000,
    completionAtMs,
    subject: { id: 'bio', name: 'Biology' },
    task: null,
    attempts: { correct: 2, incorrect: 1, skipped: 0 },
    target: null,
    updatedAt: 1,
    ...overrides,
  };
}

export function idleSnapshot(overrides: Partial<TimerSnapshot> = {}): TimerSnapshot {
  return {
    phase: 'idle',
    running: false,
    remainingMs: 0,
    completionAtMs: null,
    subject: null,
    task: null,
    attempts: { correct: 0, incorrect: 0, skipped: 0 },
    target: null,
    updatedAt: null,
    ...overrides,
  };
}

// The timer snapshot and the PiP action, as docs/api.md#the-timer-snapshot describes them.
import { z } from 'zod';

const count = z.number().int().min(0);

export const timerSnapshotInput = z.strictObject({
  phase: z.enum(['focus', 'break', 'idle']),
  running: z.boolean(),
  remainingMs: z.number().int().min(0),
  completionAtMs: z.number().int().min(0).nullable(),
  subject: z.strictObject({ id: z.string().max(100), name: z.string().max(200) }).nullable(),
  task: z.strictObject({ id: z.string().max(100), title: z.string().max(500) }).nullable(),
  attempts: z.strictObject({ correct: count, incorrect: count, skipped: count }),
  target: z.number().int().positive().nullable(),
  // The page may send its own clock; the server stamps the time it received the snapshot instead.
  updatedAt: z.unknown().optional(),
});

export type TimerSnapshotInput = z.infer<typeof timerSnapshotInput>;
export type TimerSnapshot = Omit<TimerSnapshotInput, 'updatedAt'> & { updatedAt: number | null };

export const idleSnapshot: TimerSnapshot = Object.freeze({
  phase: 'idle',
  running: false,
  remainingMs: 0,
  completionAtMs: null,
  subject: null,
  task: null,
  attempts: { correct: 0, incorrect: 0, skipped: 0 },
  target: null,
  updatedAt: null,
});

export const pipAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.enum(['correct', 'incorrect', 'skip', 'undo']) }),
  z.strictObject({ action: z.literal('target'), target: z.number().int().positive().max(10_000) }),
]);

export type PipAction = z.infer<typeof pipAction>;

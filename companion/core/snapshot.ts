// The timer snapshot as GET /api/pip/state answers it. The companion parses every answer, so a
// proxy's error page or an older server never reaches the screen as garbage.
import * as z from 'zod/mini';

const count = z.number().check(z.int(), z.minimum(0));

export const timerSnapshot = z.object({
  phase: z.enum(['focus', 'break', 'idle']),
  running: z.boolean(),
  remainingMs: z.number().check(z.minimum(0)),
  completionAtMs: z.nullable(z.number()),
  subject: z.nullable(z.object({ id: z.string(), name: z.string() })),
  task: z.nullable(z.object({ id: z.string(), title: z.string() })),
  attempts: z.object({ correct: count, incorrect: count, skipped: count }),
  target: z.nullable(z.number().check(z.int(), z.minimum(1))),
  updatedAt: z.nullable(z.number()),
});

export type TimerSnapshot = z.infer<typeof timerSnapshot>;

export function parseSnapshot(value: unknown): TimerSnapshot | undefined {
  const parsed = timerSnapshot.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A session is on while the focus page's timer runs in a focus or break phase. */
export function isSessionRunning(snapshot: TimerSnapshot | undefined): boolean {
  return snapshot !== undefined && snapshot.running && snapshot.phase !== 'idle';
}

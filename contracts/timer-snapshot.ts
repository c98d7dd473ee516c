// The timer snapshot (docs/api.md#the-timer-snapshot): what the focus page posts to
// POST /__pip/state, what GET /api/pip/state answers and what the relay's `hello` event carries.
// The gateway validates with these schemas and the phone and the web app parse with them, so the
// shape is written here only. zod/mini keeps the browser's share small (the /focus budget).
//
// Direction decides strictness: the gateway refuses any key it does not know in what it receives;
// a reader drops unknown keys instead, so a phone app older than its server keeps working.
import * as z from 'zod/mini';

/** The longest subject id and name, task id and title a snapshot may carry. */
export const SNAPSHOT_LIMITS = { subjectId: 100, subjectName: 200, taskId: 100, taskTitle: 500 } as const;

type ObjectOf<Config extends z.core.$ZodObjectConfig> = <Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
) => z.ZodMiniObject<Shape, Config>;

const count = z.int().check(z.minimum(0));
const wholeMs = z.int().check(z.minimum(0));

function snapshotShape<Config extends z.core.$ZodObjectConfig>(object: ObjectOf<Config>) {
  return {
    phase: z.enum(['focus', 'break', 'idle']),
    running: z.boolean(),
    remainingMs: wholeMs,
    /** When the running phase ends (ms since the epoch); null while paused. */
    completionAtMs: z.nullable(wholeMs),
    subject: z.nullable(
      object({
        id: z.string().check(z.maxLength(SNAPSHOT_LIMITS.subjectId)),
        name: z.string().check(z.maxLength(SNAPSHOT_LIMITS.subjectName)),
      }),
    ),
    task: z.nullable(
      object({
        id: z.string().check(z.maxLength(SNAPSHOT_LIMITS.taskId)),
        title: z.string().check(z.maxLength(SNAPSHOT_LIMITS.taskTitle)),
      }),
    ),
    attempts: object({ correct: count, incorrect: count, skipped: count }),
    /** A positive number of questions, or null. */
    target: z.nullable(z.int().check(z.positive())),
    /**
     * Every focus phase of the session is over and it waits for Finish (`phase` is then `idle`).
     * Optional: a page older than this key does not send it.
     */
    complete: z.optional(z.boolean()),
  };
}

/** The body of POST /__pip/state. The page may send its own clock; the server stamps its own instead. */
export const timerSnapshotInput = z.strictObject({
  ...snapshotShape(z.strictObject),
  updatedAt: z.optional(z.unknown()),
});

/** A snapshot as the gateway hands it out: updatedAt is the server's ms when it arrived, null before any post. */
export const timerSnapshot = z.object({ ...snapshotShape(z.object), updatedAt: z.nullable(wholeMs) });

export type TimerSnapshotInput = z.infer<typeof timerSnapshotInput>;
export type TimerSnapshot = z.infer<typeof timerSnapshot>;
/** What the focus page posts (it leaves updatedAt to the server). */
export type PostedTimerSnapshot = Omit<TimerSnapshotInput, 'updatedAt'>;

/** The snapshot before any page posted one. */
export const idleSnapshot: TimerSnapshot = Object.freeze({
  phase: 'idle',
  running: false,
  remainingMs: 0,
  completionAtMs: null,
  subject: null,
  task: null,
  attempts: Object.freeze({ correct: 0, incorrect: 0, skipped: 0 }),
  target: null,
  updatedAt: null,
});

/** A snapshot read from the wire (GET /api/pip/state, the `hello` event), or undefined when it is not one. */
export function parseTimerSnapshot(value: unknown): TimerSnapshot | undefined {
  const parsed = timerSnapshot.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The answer of POST /__pip/state. */
export const snapshotStored = z.object({ ok: z.literal(true), updatedAt: wholeMs });
export type SnapshotStored = z.infer<typeof snapshotStored>;

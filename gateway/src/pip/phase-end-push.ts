// The phase-end push from the relay's side. A focus page that names its student (it posts its
// snapshots with `Authorization: Bearer <access token>`) gets a Web Push on her devices when the
// running phase ends: each post whose running phase or end differs from the last one scheduled for
// her calls community_schedule_phase_end with her own token (a pause, a stop or an idle snapshot
// cancels). The database checks the token and queues the push for her devices only, so a post
// without a token, or with another student's forged `sub`, can never schedule or cancel anyone's push.
//
// The channel is not tied to a student: with pairing off every page on the network shares one
// channel, and a snapshot posted there by someone else must not move her push. Only her own
// signed posts do. What was last scheduled is remembered per student, and only after the backend
// accepted it, so a rejected call (a forged token) leaves nothing behind.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';
import type { Caller } from '../auth/bearer.ts';

/** The end of a running phase, or null when nothing runs. */
export type PhaseEnd = { phase: 'focus' | 'break'; endsAtMs: number } | null;

export interface PhaseEndLog {
  debug(object: object, message: string): void;
}

/** Students remembered at once; past it the longest-remembered is forgotten (it is only a cache of calls). */
export const MAX_REMEMBERED_STUDENTS = 10_000;

export function phaseEndOf(snapshot: Pick<TimerSnapshot, 'phase' | 'running' | 'completionAtMs'>): PhaseEnd {
  if (!snapshot.running || snapshot.phase === 'idle' || snapshot.completionAtMs === null) return null;
  return { phase: snapshot.phase, endsAtMs: snapshot.completionAtMs };
}

function keyOf(end: PhaseEnd): string {
  return end ? `${end.phase}@${end.endsAtMs}` : 'none';
}

export class PhaseEndScheduler {
  /** Per student: the phase end the backend last accepted. */
  private readonly scheduled = new Map<string, string>();
  /** Per student: calls run one after another, so a pause never overtakes the start before it. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly schedule: (token: string, end: PhaseEnd) => Promise<void>,
    private readonly log: PhaseEndLog,
    private readonly maxStudents = MAX_REMEMBERED_STUDENTS,
  ) {}

  /** A snapshot the caller posted; never throws and never waits for the backend. */
  note(caller: Caller, snapshot: Pick<TimerSnapshot, 'phase' | 'running' | 'completionAtMs'>): void {
    const end = phaseEndOf(snapshot);
    const key = keyOf(end);
    const previous = this.queues.get(caller.userId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.scheduled.get(caller.userId) === key) return;
      try {
        await this.schedule(caller.token, end);
        this.remember(caller.userId, key);
      } catch (error) {
        this.log.debug({ err: error }, 'pip: scheduling the phase-end push failed');
      }
    });
    this.queues.set(caller.userId, next);
    void next.finally(() => {
      if (this.queues.get(caller.userId) === next) this.queues.delete(caller.userId);
    });
  }

  /** Resolves when every call started so far has settled (tests). */
  async settled(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  private remember(userId: string, key: string): void {
    this.scheduled.delete(userId);
    this.scheduled.set(userId, key);
    if (this.scheduled.size > this.maxStudents) {
      const oldest = this.scheduled.keys().next().value;
      if (oldest !== undefined) this.scheduled.delete(oldest);
    }
  }
}

// When the timer's running phase ends, and what to say about it. Pure: the state modules ask it,
// with the timer as it was before a change and the time of the change, whether a phase ended in
// between (the page's clock ticks once a second; a hidden tab may tick much later).
import { advance, type TimerState } from './timer.ts';

export interface PhaseEnd {
  /** The phase that ended. */
  phase: 'focus' | 'break';
  endedAtMs: number;
  /** What follows it: the other phase, or the end of the session. */
  next: 'focus' | 'break' | 'done';
}

/**
 * An end older than this is not announced: a laptop that slept through three phases wakes silent,
 * instead of chiming for something long over.
 */
export const STALE_END_MS = 60_000;

/** The latest phase end between `before` and `now`, or null (none, or stale). */
export function phaseEndBetween(before: TimerState, now: number, staleAfterMs = STALE_END_MS): PhaseEnd | null {
  let state = before;
  let last: PhaseEnd | null = null;
  // Each step moves exactly one phase (the next one ends at least a minute later); the bound only
  // guards against a malformed stored state.
  for (let steps = 0; steps < 1000; steps++) {
    const endsAt = state.completionAtMs;
    if (!state.running || endsAt === null || state.phase === 'idle' || now < endsAt) break;
    const next = advance(state, endsAt);
    last = {
      phase: state.phase,
      endedAtMs: endsAt,
      next: next.complete ? 'done' : next.phase === 'break' ? 'break' : 'focus',
    };
    if (next === state) break;
    state = next;
  }
  if (!last || now - last.endedAtMs > staleAfterMs) return null;
  return last;
}

/** The notification's words for one end. */
export function phaseEndMessage(end: Pick<PhaseEnd, 'phase' | 'next'>): { title: string; body: string } {
  if (end.phase === 'break') return { title: 'Break over', body: 'Back to focus.' };
  if (end.next === 'done') return { title: 'Focus phase over', body: 'Session complete: press Finish to save it.' };
  return { title: 'Focus phase over', body: 'Time for a break.' };
}

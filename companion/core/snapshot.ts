// What the companion reads from a timer snapshot. The snapshot's shape and its parser are the wire
// contract in contracts/timer-snapshot.ts; the companion parses every answer with it, so a proxy's
// error page or an older server never reaches the screen as garbage.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';

/** A session is on while the focus page's timer runs in a focus or break phase. */
export function isSessionRunning(snapshot: TimerSnapshot | undefined): boolean {
  return snapshot !== undefined && snapshot.running && snapshot.phase !== 'idle';
}

/** The session waits for Finish: every focus phase is over (the page reports it idle and complete). */
export function isSessionComplete(snapshot: TimerSnapshot | undefined): boolean {
  return snapshot?.complete === true;
}

/** There is a session to finish: one has started (a focus or break phase, paused or not) or is complete. */
export function canFinish(snapshot: TimerSnapshot | undefined): boolean {
  if (!snapshot || snapshot.updatedAt === null) return false;
  return snapshot.phase !== 'idle' || isSessionComplete(snapshot);
}

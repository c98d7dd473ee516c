// What the companion reads from a timer snapshot. The snapshot's shape and its parser are the wire
// contract in contracts/timer-snapshot.ts; the companion parses every answer with it, so a proxy's
// error page or an older server never reaches the screen as garbage.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';

/** A session is on while the focus page's timer runs in a focus or break phase. */
export function isSessionRunning(snapshot: TimerSnapshot | undefined): boolean {
  return snapshot !== undefined && snapshot.running && snapshot.phase !== 'idle';
}

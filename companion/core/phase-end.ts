// When the phone announces a phase end: the running phase's completionAtMs has passed, by the
// phone's own clock (the render tick checks every 40 ms, so it does not wait for the page's next
// snapshot). Each end is announced once; a pause before the end, or an end long past (a phone that
// slept through it), announces nothing.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';

/** An end older than this when first seen is not announced. */
export const STALE_PHASE_END_MS = 60_000;
/** How long the face says "Focus phase over" after the end. */
export const PHASE_END_SHOWN_MS = 15_000;

export interface PhoneEnd {
  phase: 'focus' | 'break';
  endedAtMs: number;
}

export class PhaseEndWatcher {
  private tracked: PhoneEnd | null = null;
  private announcedAt: number | null = null;

  /** The end to announce now, or null; call with every snapshot and tick. */
  check(snapshot: TimerSnapshot | undefined, now: number): PhoneEnd | null {
    const current: PhoneEnd | null =
      snapshot && snapshot.running && snapshot.phase !== 'idle' && snapshot.completionAtMs !== null
        ? { phase: snapshot.phase, endedAtMs: snapshot.completionAtMs }
        : null;
    // The phase on screen, or the one it replaced (the page moved on before this phone's tick saw the end).
    const candidates = [current, this.tracked];
    this.tracked = current;
    for (const candidate of candidates) {
      if (!candidate || now < candidate.endedAtMs || candidate.endedAtMs === this.announcedAt) continue;
      if (now - candidate.endedAtMs > STALE_PHASE_END_MS) continue;
      this.announcedAt = candidate.endedAtMs;
      return candidate;
    }
    return null;
  }
}

// Session detection: while no overlay is shown, the Android app asks for the timer every
// AUTO_POLL_MS only to notice that a focus session started, and then launches the overlay. It does
// nothing else with the answers; the overlay's own poll takes over from there.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';
import { isSessionRunning } from './snapshot.ts';
import type { StateAnswer } from './pip-client.ts';

export const AUTO_POLL_MS = 5_000;

/** A start: the timer runs now and did not on the previous good answer (or there was none). */
export function isSessionStart(previous: TimerSnapshot | undefined, next: TimerSnapshot): boolean {
  return isSessionRunning(next) && !isSessionRunning(previous);
}

export interface SessionWatchOptions {
  getState: () => Promise<StateAnswer>;
  onSessionStart: (snapshot: TimerSnapshot) => void;
}

/** Asks at once and then every AUTO_POLL_MS; returns stop. Failures just wait for the next round. */
export function watchForSessionStart({ getState, onSessionStart }: SessionWatchOptions): () => void {
  let previous: TimerSnapshot | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  async function check(): Promise<void> {
    const answer = await getState();
    if (stopped) return;
    if (answer.kind === 'snapshot') {
      if (isSessionStart(previous, answer.snapshot)) onSessionStart(answer.snapshot);
      previous = answer.snapshot;
    }
    timer = setTimeout(check, AUTO_POLL_MS);
  }

  timer = setTimeout(check, 0);
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}

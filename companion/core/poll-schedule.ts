// How often the timer is polled: every second while it runs, every 3 s otherwise. After a failure
// the wait doubles from 1 s and is capped at 5 s for a server on this device (loopback: it usually
// comes back quickly, after a restart) and 8 s for a server elsewhere. A loopback server is polled
// even when the OS says there is no network (loopback needs none); a remote one is not.

export const POLL_RUNNING_MS = 1_000;
export const POLL_IDLE_MS = 3_000;
export const BACKOFF_FIRST_MS = 1_000;
export const BACKOFF_CAP_LOOPBACK_MS = 5_000;
export const BACKOFF_CAP_REMOTE_MS = 8_000;

/** The wait after `consecutiveFailures` failures in a row (1 -> 1 s, 2 -> 2 s, 3 -> 4 s, then the cap). */
export function backoffDelayMs(consecutiveFailures: number, loopback: boolean): number {
  const cap = loopback ? BACKOFF_CAP_LOOPBACK_MS : BACKOFF_CAP_REMOTE_MS;
  const exponent = Math.min(Math.max(consecutiveFailures, 1) - 1, 16);
  return Math.min(cap, BACKOFF_FIRST_MS * 2 ** exponent);
}

export function nextPollDelayMs(state: { running: boolean; consecutiveFailures: number; loopback: boolean }): number {
  if (state.consecutiveFailures > 0) return backoffDelayMs(state.consecutiveFailures, state.loopback);
  return state.running ? POLL_RUNNING_MS : POLL_IDLE_MS;
}

/** Whether to send a request now: always for loopback, otherwise only when the OS reports a network. */
export function shouldRequest({
  networkAvailable,
  loopback,
}: {
  networkAvailable: boolean;
  loopback: boolean;
}): boolean {
  return networkAvailable || loopback;
}

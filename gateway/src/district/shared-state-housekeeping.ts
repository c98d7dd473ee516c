// Every server of a district prunes the shared state now and then (gateway_prune_shared_state):
// ended counting windows and expired session records. Any server may do it at any moment, and two
// at once delete the same rows, so no server is elected for it. A failed run is logged and the next
// one tries again.
import type { SharedState, SharedStateLog } from './shared-state.ts';

export const PRUNE_EVERY_MS = 5 * 60_000;

/** Starts pruning every intervalMs; the function returned stops it. */
export function startSharedStateHousekeeping(
  state: SharedState,
  log: SharedStateLog,
  intervalMs: number = PRUNE_EVERY_MS,
): () => void {
  const timer = setInterval(() => {
    state.call('gateway_prune_shared_state', {}).then(
      (deleted) => log.info({ deleted }, 'shared state: pruned'),
      (error: unknown) => log.warn({ err: error }, 'shared state: pruning failed; the next run tries again'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

// PGlite runs Postgres as a single process, without the checkpointer that would otherwise write a
// checkpoint every checkpoint_timeout (5 min by default). Without one, the WAL since the engine
// opened is never recycled (a day of use is hundreds of megabytes), and the reopening after a
// statement timeout or a crash (pglite-engine.ts) replays all of it. So the engine gets what the
// checkpointer would do: a CHECKPOINT every CHECKPOINT_INTERVAL_MS (one with nothing to write
// costs a few milliseconds).
import type pg from 'pg';

/** Postgres's default checkpoint_timeout. */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

/** Starts the checkpoints; returns the function that stops them. */
export function startCheckpoints(
  pool: pg.Pool,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void checkpoint(pool)
      .catch((error: unknown) => options.log?.(`pglite: checkpoint failed: ${(error as Error).message}`))
      .finally(() => (running = false));
  }, options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** One CHECKPOINT. */
export async function checkpoint(pool: pg.Pool): Promise<void> {
  await pool.query('checkpoint');
}

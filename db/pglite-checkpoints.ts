// PGlite runs Postgres as a single process, without the checkpointer that would otherwise write a
// checkpoint every checkpoint_timeout (5 min by default). Without one, the WAL since the engine
// opened is never recycled (a day of use is hundreds of megabytes), and everything that opens the
// directory after a crash replays all of it: the reopening after a statement timeout
// (pglite-engine.ts) and each snapshot for reads (snapshot-reads.ts), which also copies it. So the
// engine gets what the checkpointer would do: a CHECKPOINT every CHECKPOINT_INTERVAL_MS, when
// anything may have been written since the last one.
import type pg from 'pg';
import { type PgliteEngine, tagRequest } from './pglite-engine.ts';

/** Postgres's default checkpoint_timeout. */
export const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

/** Starts the checkpoints; returns the function that stops them. */
export function startCheckpoints(
  pool: pg.Pool,
  engine: PgliteEngine,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
): () => void {
  let writesAtLast = engine.writes;
  let running = false;
  const timer = setInterval(() => {
    if (running || engine.writes === writesAtLast) return;
    running = true;
    void checkpoint(pool)
      .then(
        () => (writesAtLast = engine.writes),
        (error: unknown) => options.log?.(`pglite: checkpoint failed: ${(error as Error).message}`),
      )
      .finally(() => (running = false));
  }, options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * One CHECKPOINT. It changes no data, so it is tagged read-only: a snapshot for reads taken before
 * it still holds everything committed.
 */
export async function checkpoint(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  tagRequest(client, { caller: 'localbase:checkpoint', readOnly: true });
  try {
    await client.query('checkpoint');
  } finally {
    tagRequest(client, null);
    client.release();
  }
}

// The embedded engine's stand-in for Postgres's checkpointer: a checkpoint after writes, none while
// nothing is written, so the WAL that a reopening replays stays short.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCheckpoints } from './pglite-checkpoints.ts';
import { enginePoolConfig, MEMORY, PgliteEngine, tagRequest } from './pglite-engine.ts';

let engine: PgliteEngine;
let pool: pg.Pool;
let stop: () => void;

/** Asked as a read-only request would ask (tagged so): reads alone must not call for a checkpoint. */
async function redoPoint(): Promise<string> {
  const client = await pool.connect();
  tagRequest(client, { caller: 'test', readOnly: true });
  try {
    const { rows } = await client.query<{ redo: string }>('select redo_lsn::text as redo from pg_control_checkpoint()');
    return rows[0]!.redo;
  } finally {
    tagRequest(client, null);
    client.release();
  }
}

beforeAll(async () => {
  engine = new PgliteEngine({ pgdata: MEMORY });
  await engine.start();
  pool = new pg.Pool(enginePoolConfig(engine));
  await pool.query('create table public.log (id serial primary key, line text not null)');
  stop = startCheckpoints(pool, engine, { intervalMs: 100 });
}, 60_000);

afterAll(async () => {
  stop?.();
  await pool?.end();
  await engine?.close();
});

describe('checkpoints on the embedded engine', () => {
  it('writes one after something was written, moving the point a reopening replays from', async () => {
    const before = await redoPoint();
    await pool.query("insert into public.log (line) select 'line ' || n from generate_series(1, 500) n");
    await vi.waitFor(async () => expect(await redoPoint()).not.toBe(before), { timeout: 10_000 });
  });

  it('writes none while only reads happen', async () => {
    // Let a checkpoint for the writes above (and the reads just made) pass first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const settled = await redoPoint();
    for (let index = 0; index < 5; index++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await redoPoint()).toBe(settled);
    }
  });
});

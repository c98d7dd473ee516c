// The embedded engine's stand-in for Postgres's checkpointer: a checkpoint at each interval, so the
// WAL that a reopening replays stays short.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCheckpoints } from './pglite-checkpoints.ts';
import { enginePoolConfig, MEMORY, PgliteEngine } from './pglite-engine.ts';

let engine: PgliteEngine;
let pool: pg.Pool;
let stop: () => void;

async function redoPoint(): Promise<string> {
  const { rows } = await pool.query<{ redo: string }>('select redo_lsn::text as redo from pg_control_checkpoint()');
  return rows[0]!.redo;
}

beforeAll(async () => {
  engine = new PgliteEngine({ pgdata: MEMORY });
  await engine.start();
  pool = new pg.Pool(enginePoolConfig(engine));
  await pool.query('create table public.log (id serial primary key, line text not null)');
  stop = startCheckpoints(pool, { intervalMs: 100 });
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
});

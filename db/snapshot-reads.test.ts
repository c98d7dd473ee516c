// Reads while one statement holds the embedded engine: another caller's read is answered from a
// snapshot with what was committed before the statement, the holder's own reads wait for it, the
// snapshot answers through the reopening after the cut and ends with the first write. And the crash
// image under it: copied while transactions commit, it opens with whole transactions only.
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { copyCrashImage } from './crash-image.ts';
import { openPglite } from './pglite.ts';
import { enginePoolConfig, limitStatements, MEMORY, PgliteEngine, tagRequest } from './pglite-engine.ts';
import { SnapshotReads } from './snapshot-reads.ts';

/** Long enough to outlast everything the tests do while it runs; the watchdog cuts it. */
const HOLDING_TIMEOUT_MS = 8_000;

let engine: PgliteEngine;
let pool: pg.Pool;
let reads: SnapshotReads;

beforeAll(async () => {
  engine = new PgliteEngine({ pgdata: MEMORY });
  await engine.start();
  pool = new pg.Pool(enginePoolConfig(engine));
  pool.on('error', () => {});
  reads = new SnapshotReads(engine, { minIntervalMs: 0 });
  await reads.start();
  await pool.query('create table public.notes (id int primary key, body text not null)');
  await pool.query("insert into public.notes values (1, 'committed before')");
}, 60_000);

afterAll(async () => {
  await reads?.close();
  await pool?.end();
  await engine?.close();
});

/** A read-only request of `caller`, as localbase runs one: its rows and when it was answered. */
async function read(caller: string, sql = 'select id, body from public.notes order by id') {
  const client = await reads.acquire(caller, () => pool.connect());
  tagRequest(client, { caller, readOnly: true });
  limitStatements(client, HOLDING_TIMEOUT_MS);
  let broken = false;
  try {
    await client.query('begin read only');
    const { rows } = await client.query(sql);
    await client.query('commit');
    return { rows, at: performance.now() };
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    limitStatements(client, null);
    tagRequest(client, null);
    reads.release(client, broken);
  }
}

describe('reads while one statement holds the embedded engine', () => {
  let holding: Promise<{ code?: string; at: number }>;

  it('answers another caller from a snapshot with what was committed before the statement', async () => {
    expect(engine.stall).toBeUndefined();
    // Ada's statement holds the engine until the watchdog cuts it.
    holding = read('ada', 'select pg_sleep(600)').then(
      () => ({ at: performance.now() }),
      (error: { code?: string }) => ({ code: error.code, at: performance.now() }),
    );
    await vi.waitFor(() => expect(engine.stall).toMatchObject({ caller: 'ada', reopening: false }), {
      timeout: 10_000,
    });

    const bo = await read('bo');
    expect(bo.rows).toEqual([{ id: 1, body: 'committed before' }]);
    expect(reads.opened).toBe(1);
    // Answered while the statement still held the engine.
    expect(engine.stall?.caller).toBe('ada');
  }, 30_000);

  it('keeps the caller whose statement holds the engine waiting for it', async () => {
    const adaAgain = read('ada');
    const bo = await read('bo');
    expect(bo.rows).toHaveLength(1);
    const cut = await holding;
    const ada = await adaAgain;
    expect(cut.code).toBe('57014');
    expect(ada.at).toBeGreaterThan(cut.at);
    expect(bo.at).toBeLessThan(cut.at);
  }, 30_000);

  it('keeps the snapshot through the cut and the reopening: nothing was written', async () => {
    expect(engine.restarts).toBe(1);
    const bo = await read('bo');
    expect(bo.rows).toEqual([{ id: 1, body: 'committed before' }]);
    expect(reads.opened).toBe(1);
  });

  it('ends the snapshot with the first write: the next read sees it, on the primary', async () => {
    await pool.query("insert into public.notes values (2, 'written after')");
    const bo = await read('bo');
    expect(bo.rows).toEqual([
      { id: 1, body: 'committed before' },
      { id: 2, body: 'written after' },
    ]);
    expect(reads.opened).toBe(1);
  });

  it('makes no snapshot while nothing holds the engine', async () => {
    const answers = await Promise.all(['bo', 'cy', 'di'].map((caller) => read(caller)));
    expect(answers.map((answer) => answer.rows.length)).toEqual([2, 2, 2]);
    expect(reads.opened).toBe(1);
  });

  it('makes none for a read of the caller who holds the engine', async () => {
    const holdingAgain = read('ada', 'select pg_sleep(1)');
    await vi.waitFor(() => expect(engine.stall?.caller).toBe('ada'), { timeout: 10_000 });
    const ada = await read('ada');
    await holdingAgain;
    expect(ada.rows).toHaveLength(2);
    expect(reads.opened).toBe(1);
  }, 30_000);
});

describe('a crash image copied while transactions commit', () => {
  it('opens, with every transaction whole and none that committed after the copy', async () => {
    await pool.query('create table public.pairs (id serial primary key, pair int not null, half int not null)');
    let committed = 0;
    let writing = true;
    // Each transaction writes two rows; a copy that split one would show an odd count of a pair.
    const writer = (async () => {
      for (let pair = 1; writing; pair++) {
        await pool.query(`begin; insert into public.pairs (pair, half) values (${pair}, 1), (${pair}, 2); commit;`);
        committed = pair;
      }
    })();
    await vi.waitFor(() => expect(committed).toBeGreaterThan(20), { timeout: 10_000 });
    const before = committed;
    const target = `${engine.directory}.crash-image-test`;
    await copyCrashImage(engine.directory, target);
    const after = committed;
    writing = false;
    await writer;

    const copy = await openPglite(target);
    try {
      const { rows } = await copy.query<{ pairs: number; rows: number; halves: number; max: number }>(
        `select count(distinct pair)::int as pairs, count(*)::int as rows,
                count(*) filter (where half = 2)::int as halves, coalesce(max(pair), 0)::int as max
         from public.pairs`,
      );
      const [found] = rows;
      expect(found!.rows).toBe(found!.pairs * 2);
      expect(found!.halves).toBe(found!.pairs);
      expect(found!.pairs).toBe(found!.max);
      expect(found!.pairs).toBeGreaterThanOrEqual(before);
      expect(found!.pairs).toBeLessThanOrEqual(after + 1);
      // The index agrees with the table: recovery left no half-written page behind.
      await copy.exec('set enable_seqscan = off');
      const indexed = await copy.query<{ n: number }>('select count(*)::int as n from public.pairs where id > 0');
      expect(indexed.rows[0]?.n).toBe(found!.rows);
    } finally {
      await copy.close();
      await rm(target, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('at most one snapshot per interval', () => {
  it('makes the next one once the interval has passed, while the primary is still held', async () => {
    const primary = new PgliteEngine({ pgdata: MEMORY });
    await primary.start();
    const primaryPool = new pg.Pool(enginePoolConfig(primary));
    primaryPool.on('error', () => {});
    const limited = new SnapshotReads(primary, { minIntervalMs: 4_000 });
    await limited.start();
    const readAs = async (caller: string, sql: string) => {
      const client = await limited.acquire(caller, () => primaryPool.connect());
      tagRequest(client, { caller, readOnly: true });
      try {
        await client.query('begin read only');
        const { rows } = await client.query(sql);
        await client.query('commit');
        return rows;
      } finally {
        tagRequest(client, null);
        limited.release(client, false);
      }
    };
    try {
      await primaryPool.query('create table public.marks (n int)');
      // A short hold starts a snapshot (whether Bo gets it or the primary first does not matter),
      // then a write makes anything copied so far stale.
      const first = readAs('ada', 'select pg_sleep(1.5)');
      await vi.waitFor(() => expect(primary.stall?.caller).toBe('ada'), { timeout: 10_000 });
      await readAs('bo', 'select 1');
      await first;
      await primaryPool.query('insert into public.marks values (1)');
      // Held again within the interval: Bo's read waits it out, then gets a new snapshot, which
      // holds the write.
      let holdEnded = false;
      const second = readAs('ada', 'select pg_sleep(9)').finally(() => (holdEnded = true));
      await vi.waitFor(() => expect(primary.stall?.caller).toBe('ada'), { timeout: 10_000 });
      const rows = await readAs('bo', 'select count(*)::int as n from public.marks');
      expect(rows).toEqual([{ n: 1 }]);
      expect(holdEnded).toBe(false);
      await second;
    } finally {
      await limited.close();
      await primaryPool.end();
      await primary.close();
    }
  }, 60_000);
});

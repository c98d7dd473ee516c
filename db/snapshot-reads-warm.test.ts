// The product's snapshot reads ('warm'): a snapshot is open before any statement holds the engine,
// so the first read of a stall is answered from it. Once behind the primary it still answers
// another caller during a stall, with what it holds, but never a caller who wrote since its copy
// (or after anything untagged was written), never past its lag bound, and never while the primary
// is free. It catches up once writes pause.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enginePoolConfig, limitStatements, MEMORY, PgliteEngine, tagRequest } from './pglite-engine.ts';
import { SnapshotReads, type SnapshotReadsOptions } from './snapshot-reads.ts';

/** The holding statement is cut here; every read in a test is made well before that. */
const HOLD_TIMEOUT_MS = 2_000;
/** Waits for nothing but a test's own steps. */
const NEVER_MS = 10 * 60_000;

interface Setup {
  engine: PgliteEngine;
  pool: pg.Pool;
  reads: SnapshotReads;
}

async function setUp(options: SnapshotReadsOptions): Promise<Setup> {
  const engine = new PgliteEngine({ pgdata: MEMORY });
  await engine.start();
  const pool = new pg.Pool(enginePoolConfig(engine));
  pool.on('error', () => {});
  await pool.query('create table public.notes (id int primary key, body text not null)');
  await pool.query("insert into public.notes values (1, 'committed before')");
  // Made only by the tests' own steps: no second snapshot for a waiting read, no timed refresh.
  const reads = new SnapshotReads(engine, { mode: 'warm', minIntervalMs: NEVER_MS, ...options });
  await reads.start();
  await reads.keepWarm();
  return { engine, pool, reads };
}

async function tearDown(setup: Setup | undefined): Promise<void> {
  await setup?.reads.close();
  await setup?.pool.end();
  await setup?.engine.close();
}

/** A read-only request of `caller`, as localbase runs one: the ids it saw and whether the hold had ended. */
async function read({ pool, reads }: Setup, caller: string, hold?: { ended: boolean }) {
  const client = await reads.acquire(caller, () => pool.connect());
  tagRequest(client, { caller, readOnly: true });
  try {
    await client.query('begin read only');
    const { rows } = await client.query<{ id: number }>('select id from public.notes order by id');
    await client.query('commit');
    return { ids: rows.map((row) => row.id), afterTheHold: hold?.ended ?? false };
  } finally {
    tagRequest(client, null);
    reads.release(client, false);
  }
}

/** A write of `caller` (undefined: untagged, as localbase's own work is). */
async function write({ pool }: Setup, caller: string | undefined, id: number): Promise<void> {
  const client = await pool.connect();
  if (caller) tagRequest(client, { caller, readOnly: false });
  try {
    await client.query('insert into public.notes values ($1, $2)', [id, `written by ${caller ?? 'localbase'}`]);
  } finally {
    tagRequest(client, null);
    client.release();
  }
}

/**
 * Ada's statement holds the engine for `seconds`, or until the watchdog cuts it; resolves once it
 * counts as held.
 */
async function hold({ pool, engine }: Setup, seconds = 600): Promise<{ ended: boolean; done: Promise<void> }> {
  const client = await pool.connect();
  tagRequest(client, { caller: 'ada', readOnly: true });
  limitStatements(client, HOLD_TIMEOUT_MS);
  const state = { ended: false, done: Promise.resolve() };
  state.done = client
    .query('select pg_sleep($1)', [seconds])
    .then(
      () => {},
      () => {},
    )
    .finally(() => {
      state.ended = true;
      limitStatements(client, null);
      tagRequest(client, null);
      client.release(true);
    });
  await vi.waitFor(() => expect(engine.stall).toMatchObject({ caller: 'ada', reopening: false }), { timeout: 10_000 });
  return state;
}

/** Until the engine has reopened after the cut and answers Ada again (a read: it writes nothing). */
async function settled(setup: Setup, held: { done: Promise<void> }): Promise<void> {
  await held.done;
  await read(setup, 'ada');
}

describe("'warm' snapshot reads", () => {
  let setup: Setup;

  beforeAll(async () => {
    // Catches up once writes pause for 300 ms and the copy is 2 s old; never by age alone here.
    setup = await setUp({ quietMs: 300, quietMinAgeMs: 2_000, refreshAfterMs: NEVER_MS, maxLagMs: NEVER_MS });
  }, 60_000);

  afterAll(() => tearDown(setup));

  it('has a snapshot open before anything holds the engine, and answers the first read of a stall from it', async () => {
    expect(setup.reads.opened).toBe(1);
    const held = await hold(setup);
    const bo = await read(setup, 'bo', held);
    expect(bo).toEqual({ ids: [1], afterTheHold: false });
    expect(setup.reads.opened).toBe(1);
    // The snapshot's engine, with its smaller buffer pool (the primary's is 32 MB).
    const client = await setup.reads.acquire('di', () => setup.pool.connect());
    try {
      expect((await client.query('show shared_buffers')).rows).toEqual([{ shared_buffers: '8MB' }]);
    } finally {
      setup.reads.release(client, false);
    }
    await settled(setup, held);
  }, 30_000);

  it('answers from a copy that is behind, during a stall, what it holds; the writer herself reads hers', async () => {
    await write(setup, 'cy', 2);
    expect(setup.engine.writesSeenBy('cy')).toBe(setup.engine.writes);
    expect(setup.engine.writesSeenBy('bo')).toBeLessThan(setup.engine.writes);
    const held = await hold(setup);
    const [bo, cy] = await Promise.all([read(setup, 'bo', held), read(setup, 'cy', held)]);
    expect(bo).toEqual({ ids: [1], afterTheHold: false });
    // From the primary after the cut, or from a newer copy made during the stall.
    expect(cy.ids).toEqual([1, 2]);
    await settled(setup, held);
  }, 30_000);

  it('is not asked while the primary is free: every read sees the latest write', async () => {
    expect(await read(setup, 'bo')).toEqual({ ids: [1, 2], afterTheHold: false });
  });

  it('waits out a hiccup shorter than a long stall: a copy that is behind does not answer then', async () => {
    await write(setup, 'cy', 5);
    const held = await hold(setup, 0.4);
    expect(await read(setup, 'bo', held)).toEqual({ ids: [1, 2, 5], afterTheHold: true });
    await settled(setup, held);
    await setup.pool.query('delete from public.notes where id = 5');
  });

  it('catches up once writes pause: the next stall is answered with everything, at once', async () => {
    await write(setup, 'cy', 3);
    // The insert's end is counted just after its answer: a copy begun at that count holds it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const written = setup.engine.writes;
    await vi.waitFor(() => expect(setup.reads.snapshotWrites).toBeGreaterThanOrEqual(written), {
      timeout: 20_000,
      interval: 100,
    });
    const held = await hold(setup);
    expect(await read(setup, 'cy', held)).toEqual({ ids: [1, 2, 3], afterTheHold: false });
    await settled(setup, held);
  }, 40_000);

  it('answers nobody once something untagged was written after its copy', async () => {
    await write(setup, undefined, 4);
    expect(setup.engine.writesSeenBy('bo')).toBe(setup.engine.writes);
    const held = await hold(setup);
    // From the primary after the cut, or from a newer copy made during the stall: never without it.
    expect((await read(setup, 'bo', held)).ids).toEqual([1, 2, 3, 4]);
    await settled(setup, held);
  }, 30_000);
});

describe("'warm' snapshot reads past the lag bound", () => {
  let setup: Setup;

  beforeAll(async () => {
    setup = await setUp({ quietMs: NEVER_MS, refreshAfterMs: NEVER_MS, maxLagMs: 1_000 });
  }, 60_000);

  afterAll(() => tearDown(setup));

  it('answers nobody from a copy older than the bound while it is behind: the read waits for the primary', async () => {
    await write(setup, 'cy', 2);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const held = await hold(setup);
    expect(await read(setup, 'bo', held)).toEqual({ ids: [1, 2], afterTheHold: true });
    await settled(setup, held);
  }, 30_000);
});

// PGlite in its worker thread, behind a pg Pool as the product opens it: answers and errors come
// back as from a server, callers are served in order, a new connection starts a clean session, a
// statement past its timeout is cut with 57014 without losing what was committed, a crashed thread
// is an error (never a hang), and close leaves a directory that opens again.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseSnapshot } from '#tools/testing/test-database.ts';
import { enginePoolConfig, limitStatements, PgliteEngine } from './pglite-engine.ts';

let dir: string;
let engine: PgliteEngine;
let pool: pg.Pool;

/** The first open starts from the test database's snapshot; later ones open what is in the directory. */
async function openEngine(fromSnapshot: boolean): Promise<void> {
  engine = new PgliteEngine({
    pgdata: path.join(dir, 'pgdata'),
    ...(fromSnapshot ? { loadDataDir: await testDatabaseSnapshot() } : {}),
  });
  await engine.start();
  pool = new pg.Pool(enginePoolConfig(engine));
  pool.on('error', () => {});
}

async function closeEngine(): Promise<void> {
  await pool.end();
  await engine.close();
}

/** A client whose connection errors are heard (pg would otherwise throw them). */
async function connect(): Promise<pg.PoolClient> {
  const client = await pool.connect();
  client.on('error', () => {});
  return client;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pglite-engine-'));
  await openEngine(true);
  await pool.query('create table public.engine_probe (seq serial primary key, label text not null)');
}, 180_000);

afterAll(async () => {
  await closeEngine().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('the worker engine behind a pg Pool', () => {
  it('answers queries with parameters, in the hosted search path', async () => {
    const { rows } = await pool.query<{ x: number; y: string; path: string }>(
      "select 1 as x, $1::text as y, current_setting('search_path') as path",
      ['hi'],
    );
    expect(rows).toEqual([{ x: 1, y: 'hi', path: '"$user", public, extensions' }]);
  });

  it('returns a SQL error with its SQLSTATE, and the connection keeps working', async () => {
    await expect(pool.query('select 1 / 0')).rejects.toMatchObject({ code: '22012' });
    await expect(pool.query('select * from public.no_such_table')).rejects.toMatchObject({ code: '42P01' });
    expect((await pool.query('select 2 as n')).rows).toEqual([{ n: 2 }]);
  });

  it('serves concurrent callers one after another, in the order they asked', async () => {
    await pool.query('truncate public.engine_probe');
    const labels = Array.from({ length: 20 }, (_, index) => `caller-${index}`);
    await Promise.all(
      labels.map((label) => pool.query('insert into public.engine_probe (label) values ($1)', [label])),
    );
    const { rows } = await pool.query<{ label: string }>('select label from public.engine_probe order by seq');
    expect(rows.map((row) => row.label)).toEqual(labels);
  });

  it('gives a new connection a clean session: no setting, statement or transaction of the one before', async () => {
    const first = await connect();
    await first.query("set application_name = 'left-behind'");
    await first.query('prepare left_behind as select 1');
    await first.query('begin');
    first.release(true);
    const second = await connect();
    try {
      const { rows } = await second.query<{ name: string; prepared: number; path: string }>(
        "select current_setting('application_name') as name, (select count(*)::int from pg_prepared_statements) as prepared, current_setting('search_path') as path",
      );
      expect(rows).toEqual([{ name: '', prepared: 0, path: '"$user", public, extensions' }]);
    } finally {
      second.release();
    }
  });
});

describe('the statement watchdog', () => {
  it('lets a statement within its timeout finish, and never cuts one without a timeout', async () => {
    const client = await connect();
    try {
      limitStatements(client, 2_000);
      await expect(client.query('select pg_sleep(0.2)')).resolves.toBeDefined();
      limitStatements(client, null);
      await expect(client.query('select pg_sleep(1.5)')).resolves.toBeDefined();
    } finally {
      client.release();
    }
    expect(engine.restarts).toBe(0);
  });

  it('cuts a statement past its timeout with 57014, keeps committed rows and loses the interrupted write', async () => {
    await pool.query('truncate public.engine_probe');
    await pool.query("insert into public.engine_probe (label) values ('committed')");
    const client = await connect();
    limitStatements(client, 300);
    await client.query('begin');
    await client.query("insert into public.engine_probe (label) values ('interrupted')");
    const started = Date.now();
    const running = client.query('select pg_sleep(30)').then(
      () => undefined,
      (error: unknown) => error,
    );
    // Another caller asks meanwhile: it waits for the connection, then runs on the reopened engine.
    const queued = pool.query<{ label: string }>('select label from public.engine_probe order by seq');
    const cut = await running;
    const tookMs = Date.now() - started;
    client.release(true);
    expect((await queued).rows).toEqual([{ label: 'committed' }]);
    expect(cut).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect(tookMs).toBeGreaterThanOrEqual(290);
    expect(tookMs).toBeLessThan(5_000);
    expect(engine.restarts).toBe(1);
    // The reopened engine recovered the directory: the committed row, not the interrupted one.
    const { rows } = await pool.query<{ label: string }>('select label from public.engine_probe order by seq');
    expect(rows).toEqual([{ label: 'committed' }]);
  }, 120_000);

  it('closes cleanly: the directory opens again with everything committed', async () => {
    await pool.query("insert into public.engine_probe (label) values ('before close')");
    await closeEngine();
    await expect(pool.query('select 1')).rejects.toThrow();
    await openEngine(false);
    const { rows } = await pool.query<{ label: string }>('select label from public.engine_probe order by seq');
    expect(rows.map((row) => row.label)).toEqual(['committed', 'before close']);
  }, 180_000);
});

describe('a crash of the worker thread', () => {
  it('is an error for the caller, not a hang, and the engine opens again', async () => {
    const crashing = new PgliteEngine({
      pgdata: 'unused',
      workerUrl: new URL('./fixtures/crashing-pglite-worker.mjs', import.meta.url),
    });
    await crashing.start();
    const crashingPool = new pg.Pool(enginePoolConfig(crashing));
    crashingPool.on('error', () => {});
    try {
      const started = Date.now();
      await expect(crashingPool.query('select 1')).rejects.toThrow(/embedded database thread exited \(3\)/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(crashing.restarts).toBe(1);
      // The reopened engine accepts a connection again (and this stand-in dies again on its query).
      await expect(crashingPool.query('select 1')).rejects.toThrow(/exited/);
      expect(crashing.restarts).toBe(2);
    } finally {
      await crashingPool.end();
      await crashing.close();
    }
  });
});

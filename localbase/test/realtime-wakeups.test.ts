// How a server hears that another committed a change realtime delivers (wakeups.ts): the capture
// trigger's and realtime.send's NOTIFY reach a listening connection when the writing transaction
// commits, never for one that rolls back; a listening connection the database ends is replaced, and
// the server is woken once it listens again (what was committed meanwhile is read then). On the
// embedded PostgreSQL: PGlite has one session, and no other server to hear.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSharedPostgres, type SharedPostgres } from '#tools/testing/shared-postgres.ts';
import { installCapture, syncCaptureTriggers } from '../src/realtime/capture.ts';
import { Wakeups, WAKEUP_CHANNEL } from '../src/realtime/wakeups.ts';

/** How long a test waits for a wakeup it expects, and for one it must not get. */
const WAKE_TIMEOUT_MS = 5_000;
const QUIET_MS = 500;

let shared: SharedPostgres;
let pool: pg.Pool;
let wakeups: Wakeups | undefined;
let nextNote = 1;

beforeAll(async () => {
  shared = await startSharedPostgres();
  pool = shared.database.pool;
  await installCapture(pool);
  await pool.query(`create table public.rw_notes (id bigint primary key, body text not null);
    alter publication supabase_realtime add table public.rw_notes`);
  await syncCaptureTriggers(pool);
}, 180_000);

afterEach(async () => {
  await wakeups?.stop();
  wakeups = undefined;
});

afterAll(async () => {
  await shared?.close();
});

/** Starts listening as a server does; counts the wakeups and the errors logged. */
async function listen(): Promise<{ wakes: () => number; errors: unknown[] }> {
  let wakes = 0;
  const errors: unknown[] = [];
  wakeups = new Wakeups({
    connect: () => new pg.Client(pool.options as pg.ClientConfig),
    onWake: () => {
      wakes += 1;
    },
    log: (error) => errors.push(error),
  });
  await wakeups.start();
  return { wakes: () => wakes, errors };
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAKE_TIMEOUT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${WAKE_TIMEOUT_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

describe("realtime's wakeups across servers", () => {
  it('wakes a listening server once it listens, and once per committed transaction that wrote a captured row', async () => {
    const heard = await listen();
    expect(wakeups?.listening).toBe(true);
    // The catch-up read of a server that starts listening.
    expect(heard.wakes()).toBe(1);
    await pool.query(
      `insert into public.rw_notes (id, body) select i, 'note ' || i from generate_series($1::bigint, $2::bigint) i`,
      [nextNote, nextNote + 9],
    );
    nextNote += 10;
    await until(() => heard.wakes() === 2, 'a wakeup for the committed insert');
    // Ten rows in one transaction: one notification.
    await quiet();
    expect(heard.wakes()).toBe(2);
    expect(heard.errors).toEqual([]);
  });

  it('wakes a listening server for a committed realtime.send', async () => {
    const heard = await listen();
    await pool.query(`select realtime.send('{"n": 1}'::jsonb, 'ping', 'rw-topic', false)`);
    await until(() => heard.wakes() === 2, 'a wakeup for the committed broadcast');
  });

  it('does not wake anyone for a transaction that writes and rolls back, nor before a transaction commits', async () => {
    const heard = await listen();
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('insert into public.rw_notes (id, body) values ($1, $2)', [nextNote, 'rolled back']);
      await client.query(`select realtime.send('{"n": 2}'::jsonb, 'ping', 'rw-topic', false)`);
      await quiet();
      expect(heard.wakes()).toBe(1);
      await client.query('rollback');
    } finally {
      client.release();
    }
    await quiet();
    expect(heard.wakes()).toBe(1);
  });

  it('listens again after the database ends its connection, and wakes the server when it does', async () => {
    const heard = await listen();
    const ended = await pool.query<{ ended: boolean }>(
      `select pg_catalog.pg_terminate_backend(pid) as ended from pg_catalog.pg_stat_activity
       where pid <> pg_catalog.pg_backend_pid() and query = $1`,
      [`listen ${WAKEUP_CHANNEL}`],
    );
    expect(ended.rows.map((row) => row.ended)).toEqual([true]);
    await until(() => heard.wakes() === 2 && wakeups?.listening === true, 'the catch-up wakeup after reconnecting');
    // The outage was logged, once.
    expect(heard.errors).toHaveLength(1);
    await pool.query('insert into public.rw_notes (id, body) values ($1, $2)', [nextNote, 'after the outage']);
    nextNote += 1;
    await until(() => heard.wakes() === 3, 'a wakeup on the new connection');
  });

  it('stops listening when stopped: no wakeup after stop()', async () => {
    const heard = await listen();
    await wakeups?.stop();
    expect(wakeups?.listening).toBe(false);
    await pool.query('insert into public.rw_notes (id, body) values ($1, $2)', [nextNote, 'nobody listens']);
    nextNote += 1;
    await quiet();
    expect(heard.wakes()).toBe(1);
  });
});

// The shared state of servers on one PostgreSQL (SHARED_STATE=database): an event one server
// publishes reaches the others over LISTEN/NOTIFY, once; a payload that is not an event is ignored;
// a listening connection that is cut connects again and reports a resync, and hears what follows.
// Runs the product's embedded PostgreSQL (PGlite has no second session to notify).
import path from 'node:path';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '#db/database.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { DatabaseSharedState, GATEWAY_NOTIFY_CHANNEL } from '../src/district/database-shared-state.ts';
import type { Resync, SharedEvent } from '../src/district/shared-state.ts';

const silent = { info: () => {}, warn: () => {} };
let root: string;
let database: Database;
const pools: pg.Pool[] = [];
let a: DatabaseSharedState;
let b: DatabaseSharedState;

function server(): DatabaseSharedState {
  const postgres = database.postgres;
  if (!postgres) throw new Error('not PostgreSQL');
  const pool = new pg.Pool({
    host: postgres.host,
    port: postgres.port,
    user: postgres.user,
    password: postgres.password,
    database: postgres.database,
    max: 2,
  });
  // As the product's database pool does: a client cut while it idles in the pool (the last test
  // terminates backends) is the pool's error event, which must have a listener.
  pool.on('error', () => {});
  pools.push(pool);
  return new DatabaseSharedState({ pool, listen: true, log: silent });
}

beforeAll(async () => {
  root = await makeReachableTempDir('studyhall-notify-');
  database = await openDatabase({ dataDir: path.join(root, 'data'), engine: 'postgres' });
  a = server();
  b = server();
  await Promise.all([a.ready(), b.ready()]);
}, 120_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const pool of pools) await pool.end();
  await database?.close();
  await rm(root, { recursive: true, force: true });
});

function listen(state: DatabaseSharedState): { heard: (SharedEvent | Resync)[]; stop: () => void } {
  const heard: (SharedEvent | Resync)[] = [];
  return { heard, stop: state.subscribe((event) => heard.push(event)) };
}

describe('events between servers on one database', () => {
  it('reach the other server once, and the publisher once', async () => {
    const onA = listen(a);
    const onB = listen(b);
    try {
      a.publish({ kind: 'relay-action', channel: 3, action: 9 });
      await expect.poll(() => onB.heard, { timeout: 2_000, interval: 5 }).toHaveLength(1);
      expect(onB.heard).toEqual([{ kind: 'relay-action', channel: 3, action: 9 }]);
      // Notifications arrive in the order they were sent: a second copy of the first event would
      // come before the next one, so the next one arriving second proves the first came once.
      a.publish({ kind: 'relay-action', channel: 3, action: 10 });
      await expect.poll(() => onB.heard, { timeout: 2_000, interval: 5 }).toHaveLength(2);
      expect(onB.heard[1]).toEqual({ kind: 'relay-action', channel: 3, action: 10 });
      await expect.poll(() => onA.heard, { timeout: 2_000, interval: 5 }).toHaveLength(2);
      expect(onA.heard[0]).toEqual({ kind: 'relay-action', channel: 3, action: 9 });
    } finally {
      onA.stop();
      onB.stop();
    }
  });

  it('ignore a payload on the channel that is not an event', async () => {
    const onB = listen(b);
    try {
      for (const payload of ['not json', '{"s":"x","k":"a","c":1}', '{"s":"x","k":"z","c":1}', '[]'])
        await database.pool.query('select pg_notify($1, $2)', [GATEWAY_NOTIFY_CHANNEL, payload]);
      a.publish({ kind: 'relay-snapshot', channel: 4 });
      await expect.poll(() => onB.heard, { timeout: 2_000 }).toHaveLength(1);
      expect(onB.heard).toEqual([{ kind: 'relay-snapshot', channel: 4 }]);
    } finally {
      onB.stop();
    }
  });

  it('report a resync after the listening connection was cut, and hear what follows', async () => {
    const onB = listen(b);
    try {
      const { rowCount } = await database.pool.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where query = $1 and pid <> pg_backend_pid()`,
        [`listen ${GATEWAY_NOTIFY_CHANNEL}`],
      );
      expect(rowCount).toBe(2);
      await expect.poll(() => onB.heard, { timeout: 5_000 }).toContainEqual({ kind: 'resync' });
      a.publish({ kind: 'relay-phone', channel: 5 });
      await expect.poll(() => onB.heard, { timeout: 5_000 }).toContainEqual({ kind: 'relay-phone', channel: 5 });
    } finally {
      onB.stop();
    }
  });
});

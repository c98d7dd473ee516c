// What may leave realtime's queues (readers.ts): an item goes once every server still heard from
// has read it and it is older than the retention; a server not heard from for a minute stops
// holding items back and is dropped; one that comes back is told it was dropped. Times are seeded
// in the past, not slept through. On PGlite in `npm test`, on PostgreSQL 15 in `test:pg`.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { installCapture } from '../src/realtime/capture.ts';
import { heartbeat, QUEUE_RETENTION_SECONDS, READER_EXPIRY_SECONDS } from '../src/realtime/readers.ts';

let database: Database;
let owner: pg.Pool;

beforeAll(async () => {
  database = await openParityDatabase();
  owner = database.pool;
  await installCapture(owner);
});

afterAll(async () => {
  await database?.close();
});

beforeEach(async () => {
  await owner.query(`delete from _localbase.realtime_changes; delete from _localbase.realtime_broadcasts;
    delete from _localbase.realtime_readers`);
});

const OLD = `now() - make_interval(secs => ${QUEUE_RETENTION_SECONDS + 5})`;

/** Queues a change and a broadcast written by transaction `xid` at `at` (an SQL expression). */
async function queue(xid: number, at: string = OLD): Promise<void> {
  await owner.query(
    `insert into _localbase.realtime_changes (schema_name, table_name, event, record, committed_at, xid)
     values ('public', 'notes', 'INSERT', jsonb_build_object('xid', $1::int), ${at}, $1::text::xid8)`,
    [xid],
  );
  await owner.query(
    `insert into _localbase.realtime_broadcasts (topic, event, payload, private, sent_at, xid)
     values ('t', 'e', jsonb_build_object('xid', $1::int), false, ${at}, $1::text::xid8)`,
    [xid],
  );
}

/** Another server, whose cursor waits for transaction `horizon`, last heard from `seen` (SQL). */
async function otherReader(horizon: number, seen = 'now()'): Promise<string> {
  const reader = randomUUID();
  await owner.query(
    `insert into _localbase.realtime_readers (reader, horizon, seen_at) values ($1, $2::text::xid8, ${seen})`,
    [reader, String(horizon)],
  );
  return reader;
}

async function left(): Promise<{ changes: number[]; broadcasts: number[]; readers: string[] }> {
  const changes = await owner.query<{ xid: number }>(
    `select (record ->> 'xid')::int as xid from _localbase.realtime_changes order by 1`,
  );
  const broadcasts = await owner.query<{ xid: number }>(
    `select (payload ->> 'xid')::int as xid from _localbase.realtime_broadcasts order by 1`,
  );
  const readers = await owner.query<{ reader: string }>(`select reader::text from _localbase.realtime_readers`);
  return {
    changes: changes.rows.map((row) => row.xid),
    broadcasts: broadcasts.rows.map((row) => row.xid),
    readers: readers.rows.map((row) => row.reader).sort(),
  };
}

describe("what leaves realtime's queues", () => {
  it('removes what every server still heard from has read, once older than the retention, and nothing else', async () => {
    await queue(100);
    await queue(200);
    await queue(300);
    // Read by everyone, but written a moment ago: a server that just started may still read it.
    await queue(120, 'now()');
    const other = await otherReader(150);
    const me = randomUUID();
    await heartbeat(owner, me, '250:250:');
    expect(await left()).toEqual({
      changes: [120, 200, 300],
      broadcasts: [120, 200, 300],
      readers: [me, other].sort(),
    });
  });

  it(`stops waiting for a server not heard from for ${READER_EXPIRY_SECONDS} s, and drops it`, async () => {
    await queue(100);
    await queue(200);
    await queue(300);
    await otherReader(150, `now() - make_interval(secs => ${READER_EXPIRY_SECONDS + 1})`);
    const me = randomUUID();
    await heartbeat(owner, me, '250:250:');
    expect(await left()).toEqual({ changes: [300], broadcasts: [300], readers: [me] });
  });

  it('keeps what this server has not read, whoever else has', async () => {
    await queue(100);
    await queue(200);
    await otherReader(1000);
    await heartbeat(owner, randomUUID(), '150:160:155');
    expect((await left()).changes).toEqual([200]);
  });

  it('tells a server it was registered anew when it had been dropped, and not at its other heartbeats', async () => {
    const me = randomUUID();
    expect(await heartbeat(owner, me, '10:10:')).toEqual({ registered: true });
    expect(await heartbeat(owner, me, '11:11:')).toEqual({ registered: false });
    // Dropped by another server's heartbeat after a minute of silence.
    await owner.query(
      `update _localbase.realtime_readers set seen_at = now() - make_interval(secs => ${READER_EXPIRY_SECONDS + 1})`,
    );
    await heartbeat(owner, randomUUID(), '12:12:');
    expect(await heartbeat(owner, me, '13:13:')).toEqual({ registered: true });
  });
});

// Who reads realtime's queues, and what may leave them. Reading takes nothing off a queue (queue.ts):
// each server records, every READER_HEARTBEAT_MS, how far it has read (the oldest transaction its
// cursor may still be waiting for) in `_localbase.realtime_readers`, and removes the items every
// server has read. A server not heard from for READER_EXPIRY_SECONDS (stopped, killed, cut off) is
// dropped from the table, so it no longer holds items back; one that comes back registers again and
// says that it may have missed some.
//
// An item also stays at least QUEUE_RETENTION_SECONDS: a server that has just started reads from
// the start of the queue before its first record here (queue.ts), and nothing it may read is
// removed meanwhile.
import type pg from 'pg';
import { installIfChanged } from '../installed-sql.ts';

export const READER_HEARTBEAT_MS = 5_000;
export const READER_EXPIRY_SECONDS = 60;
export const QUEUE_RETENTION_SECONDS = 30;

// Runs after the capture's install (capture.ts), which creates schema _localbase and the queues.
const INSTALL_SQL = `
create table if not exists _localbase.realtime_readers (
  reader uuid primary key,
  -- Every item of a transaction older than this has been read by this reader.
  horizon xid8 not null,
  seen_at timestamptz not null default now()
);
revoke all on _localbase.realtime_readers from public;`;

export async function installReaders(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'realtime-readers',
    sql: INSTALL_SQL,
    tables: ['_localbase.realtime_readers'],
    functions: [],
  });
}

// One statement: record this reader, drop readers gone quiet, remove what every reader still
// here has read and is old enough. Rows another server is changing at the same moment are skipped
// (skip locked), not waited for: the next heartbeat of either removes them, and two servers never
// wait on each other's locks in opposite orders.
const HEARTBEAT_SQL = `
with seen as (
  insert into _localbase.realtime_readers as r (reader, horizon, seen_at)
  values ($1::uuid, pg_catalog.pg_snapshot_xmin($2::pg_snapshot), now())
  on conflict (reader) do update set horizon = excluded.horizon, seen_at = excluded.seen_at
  returning (r.xmax operator(pg_catalog.=) 0) as registered
), gone as (
  delete from _localbase.realtime_readers
  where reader in (select reader from _localbase.realtime_readers
                   where reader <> $1::uuid and seen_at < now() - make_interval(secs => ${READER_EXPIRY_SECONDS})
                   for update skip locked)
), floor as (
  select least(pg_catalog.pg_snapshot_xmin($2::pg_snapshot),
               (select min(horizon) from _localbase.realtime_readers
                where reader <> $1::uuid and seen_at >= now() - make_interval(secs => ${READER_EXPIRY_SECONDS}))) as xid
), changes as (
  delete from _localbase.realtime_changes
  where id in (select id from _localbase.realtime_changes
               where xid < (select xid from floor)
                 and committed_at < now() - make_interval(secs => ${QUEUE_RETENTION_SECONDS})
               for update skip locked)
), broadcasts as (
  delete from _localbase.realtime_broadcasts
  where id in (select id from _localbase.realtime_broadcasts
               where xid < (select xid from floor)
                 and sent_at < now() - make_interval(secs => ${QUEUE_RETENTION_SECONDS})
               for update skip locked)
)
select registered from seen`;

/**
 * Records that `reader` has read everything `done` (a cursor's snapshot) sees, and removes what all
 * readers have read. Answers whether the reader was (re)registered rather than found.
 */
export async function heartbeat(pool: pg.Pool, reader: string, done: string): Promise<{ registered: boolean }> {
  const result = await pool.query<{ registered: boolean }>(HEARTBEAT_SQL, [reader, done]);
  return { registered: result.rows[0]?.registered === true };
}

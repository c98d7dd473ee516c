// Reading realtime's two queues: the captured changes (capture.ts) and the database's broadcasts
// (database-broadcast.ts), in one statement since a read follows every write someone listens to,
// handed over in the order they were written (they share one sequence).
//
// Several servers may serve one database (DATABASE_URL), each with its own sockets: every server
// reads every queued item, once, and nobody takes an item off the queue by reading it (readers.ts
// removes what all have read). Each server keeps its own cursor, which is a snapshot (pg_snapshot):
// the items it has read are exactly those written by the transactions that snapshot sees as
// committed. The next read takes what a newer snapshot sees and the cursor did not: the items of
// transactions that committed since, whatever their order of ids, so an item written early by a
// long transaction is read when it commits, never skipped because later ids were read before it.
// A read is a window between two snapshots, taken in pages of READ_BATCH in id order; the window
// is done, and the cursor moves to its newer snapshot, with its last page.
import type pg from 'pg';
import { z } from 'zod';
import { changeRow, type Change } from './capture.ts';
import { databaseBroadcastRow, type DatabaseBroadcast } from './database-broadcast.ts';

/** Items per read; a window holding more is read in several. */
export const READ_BATCH = 500;

export type QueuedItem = { kind: 'change'; change: Change } | { kind: 'broadcast'; broadcast: DatabaseBroadcast };

/** Where a server's reading stands (pg_snapshot text, `xmin:xmax:xip,…`). */
export interface Cursor {
  /** Every item of a transaction this snapshot sees as committed has been read. */
  done: string;
  /** A window read in part: its newer snapshot, and the last id read in it. */
  window?: { upTo: string; afterId: string };
}

/**
 * A cursor before every item: no transaction is committed in `1:1:` (transaction ids start at 3), so
 * a first read takes the whole queue. A server's channels then pass over what was written before
 * they joined (hub.ts), as they did when the queue was drained.
 */
export const START_OF_QUEUE: Cursor = { done: '1:1:' };

const queuedRow = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('change'), item: changeRow }),
  z.object({ kind: z.literal('broadcast'), item: databaseBroadcastRow }),
]);

const readAnswer = z.object({ up_to: z.string(), kind: z.string().nullable(), item: z.unknown() });

// The index on xid bounds the scan to the transactions from the older snapshot's xmin on; in each
// queue the oldest READ_BATCH of the window, then the oldest READ_BATCH of both together.
const READ_SQL = `
select w.up_to::text as up_to, q.kind, q.item
from (select $1::pg_snapshot as done, coalesce($2::pg_snapshot, pg_catalog.pg_current_snapshot()) as up_to) w
left join lateral (
  select both_queues.id, both_queues.kind, both_queues.item from (
    (select c.id, 'change' as kind,
            pg_catalog.jsonb_build_object('id', c.id, 'schema_name', c.schema_name, 'table_name', c.table_name,
              'event', c.event, 'record', c.record, 'old_record', c.old_record, 'committed_at', c.committed_at) as item
     from _localbase.realtime_changes c
     where c.xid >= pg_catalog.pg_snapshot_xmin(w.done)
       and not pg_catalog.pg_visible_in_snapshot(c.xid, w.done)
       and pg_catalog.pg_visible_in_snapshot(c.xid, w.up_to)
       and c.id > $3::bigint
     order by c.id limit ${READ_BATCH})
    union all
    (select b.id, 'broadcast',
            pg_catalog.jsonb_build_object('id', b.id, 'topic', b.topic, 'event', b.event, 'payload', b.payload,
              'private', b.private, 'sent_at', b.sent_at)
     from _localbase.realtime_broadcasts b
     where b.xid >= pg_catalog.pg_snapshot_xmin(w.done)
       and not pg_catalog.pg_visible_in_snapshot(b.xid, w.done)
       and pg_catalog.pg_visible_in_snapshot(b.xid, w.up_to)
       and b.id > $3::bigint
     order by b.id limit ${READ_BATCH})
  ) both_queues
  order by both_queues.id limit ${READ_BATCH}
) q on true
order by q.id`;

/**
 * The next items for the server at `cursor`, in the order they were written, and where it stands
 * after them. A window of more than READ_BATCH items is read over several calls: the answer's
 * cursor then has a `window`, and the caller reads again.
 */
export async function readQueues(pool: pg.Pool, cursor: Cursor): Promise<{ items: QueuedItem[]; cursor: Cursor }> {
  const result = await pool.query(READ_SQL, [cursor.done, cursor.window?.upTo ?? null, cursor.window?.afterId ?? '0']);
  let upTo = cursor.window?.upTo ?? cursor.done;
  const items: { id: number; queued: QueuedItem }[] = [];
  for (const row of result.rows) {
    const answer = readAnswer.parse(row);
    upTo = answer.up_to;
    if (answer.kind === null) continue;
    const parsed = queuedRow.parse(answer);
    items.push(
      parsed.kind === 'change'
        ? { id: Number(parsed.item.id), queued: { kind: 'change', change: parsed.item } }
        : { id: Number(parsed.item.id), queued: { kind: 'broadcast', broadcast: parsed.item } },
    );
  }
  const last = items.at(-1);
  const next: Cursor =
    items.length < READ_BATCH || !last
      ? { done: upTo }
      : { done: cursor.done, window: { upTo, afterId: String(last.id) } };
  return { items: items.map((each) => each.queued), cursor: next };
}

/**
 * A cursor past everything committed now, without reading it: for a server with no channel to
 * deliver to, whose reading would only be thrown away.
 */
export async function cursorAtNow(pool: pg.Pool): Promise<Cursor> {
  const result = await pool.query<{ now: string }>('select pg_catalog.pg_current_snapshot()::text as now');
  const now = result.rows[0]?.now;
  if (!now) throw new Error('the database answered no snapshot');
  return { done: now };
}

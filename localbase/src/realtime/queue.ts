// One drain of realtime's two queues: the captured changes (capture.ts) and the database's
// broadcasts (database-broadcast.ts), taken in one statement since a drain follows every write
// someone listens to, and handed over in the order they were written (they share one sequence).
import type pg from 'pg';
import { z } from 'zod';
import { changeRow, type Change } from './capture.ts';
import { databaseBroadcastRow, type DatabaseBroadcast } from './database-broadcast.ts';

const DRAIN_BATCH = 500;

export type QueuedItem = { kind: 'change'; change: Change } | { kind: 'broadcast'; broadcast: DatabaseBroadcast };

const queuedRow = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('change'), item: changeRow }),
  z.object({ kind: z.literal('broadcast'), item: databaseBroadcastRow }),
]);

/**
 * Whether either queue holds anything, asked in a read-only transaction: the timer's poll, which
 * mostly finds nothing, then writes nothing.
 */
export async function queuesHoldAnything(pool: pg.Pool): Promise<boolean> {
  const client = await pool.connect();
  try {
    const results = (await client.query(
      `begin read only;
       select exists (select from _localbase.realtime_changes)
           or exists (select from _localbase.realtime_broadcasts) as queued;
       commit;`,
    )) as unknown as pg.QueryResult<{ queued: boolean }>[];
    return results[1]?.rows[0]?.queued === true;
  } finally {
    client.release();
  }
}

/**
 * Takes the oldest queued changes and database broadcasts off their queues in one statement (a
 * drain runs after every write someone listens to), in the order they were written.
 */
export async function drainQueues(pool: pg.Pool): Promise<QueuedItem[]> {
  const client = await pool.connect();
  let result: pg.QueryResult;
  try {
    result = await client.query(
      `with changes as (
       delete from _localbase.realtime_changes
       where id in (select id from _localbase.realtime_changes order by id limit ${DRAIN_BATCH})
       returning id, schema_name, table_name, event, record, old_record, committed_at
     ), broadcasts as (
       delete from _localbase.realtime_broadcasts
       where id in (select id from _localbase.realtime_broadcasts order by id limit ${DRAIN_BATCH})
       returning id, topic, event, payload, private, sent_at
     )
     select 'change' as kind, to_jsonb(changes) as item from changes
     union all
     select 'broadcast', to_jsonb(broadcasts) from broadcasts`,
    );
  } finally {
    client.release();
  }
  return result.rows
    .map((row) => {
      const parsed = queuedRow.parse(row);
      return parsed.kind === 'change'
        ? { id: Number(parsed.item.id), queued: { kind: 'change' as const, change: parsed.item } }
        : { id: Number(parsed.item.id), queued: { kind: 'broadcast' as const, broadcast: parsed.item } };
    })
    .sort((a, b) => a.id - b.id)
    .map((each) => each.queued);
}

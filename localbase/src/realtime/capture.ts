// Where realtime learns about changed rows. Hosted Realtime reads the WAL; PGlite has no logical
// replication, so localbase installs (in its own schema `_localbase`, never in a bundle) an AFTER
// INSERT OR UPDATE OR DELETE trigger on every table of publication supabase_realtime that queues the
// change. Every server on the database reads the queue with a cursor of its own (queue.ts), after
// each API write it serves, when the database notifies it (the trigger's NOTIFY, sent at commit to
// every server listening: wakeups.ts) and on a short timer, which also catches writes made by others.
// Each queued change carries its transaction's id, by which the readers know when every change
// before it has committed.
//
// The old row is queued as the WAL would carry it, by the table's replica identity at the time of
// the write: its primary key (or replica identity index) columns by default, the whole row with
// REPLICA IDENTITY FULL. A DELETE from a table with RLS enabled keeps only the primary key even
// then, as Supabase Realtime does: a deleted row cannot be checked against the subscriber's
// policies, so nothing but its key may reach them.
import type pg from 'pg';
import { z } from 'zod';
import { installIfChanged } from '../installed-sql.ts';
import { installDatabaseBroadcast } from './database-broadcast.ts';
import { installReaders } from './readers.ts';
import { WAKEUP_CHANNEL } from './wakeups.ts';

export const CAPTURE_TRIGGER = 'localbase_realtime_capture';

const INSTALL_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;
create table if not exists _localbase.realtime_changes (
  id bigserial primary key,
  schema_name text not null,
  table_name text not null,
  event text not null,
  record jsonb not null,
  committed_at timestamptz not null default now()
);
-- Data dirs from before UPDATE and DELETE were captured: a DELETE has no new row.
alter table _localbase.realtime_changes add column if not exists old_record jsonb;
alter table _localbase.realtime_changes alter column record drop not null;
-- The writing transaction (its top-level id, which rolls back or commits with the row). Queues from
-- before the readers kept cursors get it for the rows they hold, all of the ALTER's own.
alter table _localbase.realtime_changes add column if not exists xid xid8 not null default pg_catalog.pg_current_xact_id();
create index if not exists realtime_changes_xid on _localbase.realtime_changes (xid);
-- SECURITY DEFINER: the writer (anon, authenticated) has no access to the queue itself.
create or replace function _localbase.capture_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_identity "char";
  v_rls boolean;
  v_old jsonb;
  v_old_record jsonb;
begin
  if tg_op <> 'INSERT' then
    select c.relreplident, c.relrowsecurity into v_identity, v_rls from pg_catalog.pg_class c where c.oid = tg_relid;
    v_old := pg_catalog.to_jsonb(old);
    if v_identity = 'f' and not (tg_op = 'DELETE' and v_rls) then
      v_old_record := v_old;
    else
      -- The key the WAL carries: the replica identity index's columns, else the primary key's.
      select coalesce(pg_catalog.jsonb_object_agg(a.attname, v_old -> a.attname::text), '{}') into v_old_record
      from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
      where i.indrelid = tg_relid
        and case when v_identity = 'i' and not (tg_op = 'DELETE' and v_rls) then i.indisreplident else i.indisprimary end;
    end if;
  end if;
  -- clock_timestamp(), not now(): the time of the write, closer to its commit than the start of
  -- a long transaction (a channel joined in between must still get the row).
  insert into _localbase.realtime_changes (schema_name, table_name, event, record, old_record, committed_at)
  values (tg_table_schema, tg_table_name, tg_op,
          case when tg_op = 'DELETE' then null else pg_catalog.to_jsonb(new) end,
          v_old_record, clock_timestamp());
  -- Wakes every server listening (wakeups.ts) once this transaction commits; one per transaction
  -- (PostgreSQL folds equal notifications of a transaction into one), none if it rolls back.
  perform pg_catalog.pg_notify('${WAKEUP_CHANNEL}', '');
  return null;
end
$$;
revoke execute on function _localbase.capture_change() from public;`;

/**
 * pg_trigger.tgtype of the capture trigger: FOR EACH ROW (1), AFTER, on INSERT (4), DELETE (8) and
 * UPDATE (16). A trigger of that name with another type is an older install's (INSERT only).
 */
const CAPTURE_TRIGGER_TYPE = 1 | 4 | 8 | 16;

/** Tables of publication supabase_realtime without the current capture trigger. */
const UNCAPTURED_TABLES_SQL = `
    select p.schemaname, p.tablename from pg_publication_tables p
    where p.pubname = 'supabase_realtime'
      and not exists (
        select 1 from pg_trigger tg
        where tg.tgrelid = format('%I.%I', p.schemaname, p.tablename)::regclass
          and tg.tgname = '${CAPTURE_TRIGGER}'
          and tg.tgtype = ${CAPTURE_TRIGGER_TYPE})`;

// Identifiers come from pg_publication_tables and are quoted by format(%I).
const SYNC_TRIGGERS_SQL = `
do $$
declare
  t record;
begin
  for t in ${UNCAPTURED_TABLES_SQL}
  loop
    execute format('drop trigger if exists ${CAPTURE_TRIGGER} on %I.%I', t.schemaname, t.tablename);
    execute format('create trigger ${CAPTURE_TRIGGER} after insert or update or delete on %I.%I for each row execute function _localbase.capture_change()',
                   t.schemaname, t.tablename);
  end loop;
end
$$;`;

export async function installCapture(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'realtime-capture',
    sql: INSTALL_SQL,
    tables: ['_localbase.realtime_changes'],
    functions: ['_localbase.capture_change()'],
  });
  // realtime.send's queue shares the change queue's sequence.
  await installDatabaseBroadcast(pool);
  await installReaders(pool);
  await syncCaptureTriggers(pool);
}

/** Adds the trigger to tables that joined the publication since the last sync (after DDL). */
export async function syncCaptureTriggers(pool: pg.Pool): Promise<void> {
  // Asked in plain SQL first: the DO block's first run in a session (PL/pgSQL) took about 100 ms
  // of a warm PGlite start, and on almost every boot there is nothing to add.
  const uncaptured = await pool.query(`select exists (${UNCAPTURED_TABLES_SQL}) as found`);
  if (uncaptured.rows[0]?.found) await pool.query(SYNC_TRIGGERS_SQL);
}

export const changeRow = z.object({
  id: z.union([z.string(), z.number()]),
  schema_name: z.string(),
  table_name: z.string(),
  event: z.enum(['INSERT', 'UPDATE', 'DELETE']),
  /** The new row; null for a DELETE. */
  record: z.record(z.string(), z.unknown()).nullable(),
  /** What the replica identity keeps of the old row (UPDATE, DELETE); null for an INSERT. */
  old_record: z.record(z.string(), z.unknown()).nullable().default(null),
  committed_at: z.coerce.date(),
});
export type Change = z.infer<typeof changeRow>;

export interface TableShape {
  primaryKey: string[];
  columns: { name: string; type: string }[];
}

/** Primary key and column types of a published table (realtime-js converts values by type). */
export async function tableShape(pool: pg.Pool, schema: string, table: string): Promise<TableShape> {
  const result = await pool.query<{ name: string; type: string; primary_key: boolean }>(
    `select a.attname as name, t.typname as type, coalesce(a.attnum = any(i.indkey), false) as primary_key
     from pg_attribute a
     join pg_type t on t.oid = a.atttypid
     left join pg_index i on i.indrelid = a.attrelid and i.indisprimary
     where a.attrelid = format('%I.%I', $1::text, $2::text)::regclass and a.attnum > 0 and not a.attisdropped
     order by a.attnum`,
    [schema, table],
  );
  return {
    primaryKey: result.rows.filter((row) => row.primary_key).map((row) => row.name),
    columns: result.rows.map((row) => ({ name: row.name, type: row.type })),
  };
}

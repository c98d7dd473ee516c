// Broadcast from the database: `realtime.send(payload, event, topic, private)`, the function hosted
// Supabase offers for triggers and functions to send a broadcast. Hosted Realtime inserts the
// message into realtime.messages and reads it from the WAL; localbase queues it (in `_localbase`,
// like the captured changes) and every server's hub relays it to its own channels when it next reads
// the queues (queue.ts), so a message reaches the topic's channels only once its transaction
// committed, and never if it rolled back.
//
// The queue shares the change queue's sequence, so changes and messages of one drain are relayed in
// the order they were written. A private message (the default, as in Supabase) reaches the topic's
// private channels whose policies let them read it (authorization.ts), a public one the public
// channels. As in Supabase, a message that cannot be sent is a warning, never an error of the
// caller's transaction. `realtime.broadcast_changes`, hosted's helper for row triggers, sends a
// row's change as a private message through it.
import type pg from 'pg';
import { z } from 'zod';
import { installIfChanged } from '../installed-sql.ts';
import { REALTIME_MAX_BROADCAST_BYTES } from './topics.ts';
import { WAKEUP_CHANNEL } from './wakeups.ts';

// Runs after the capture's install, which creates schema _localbase and the change queue.
const INSTALL_SQL = `
create table if not exists _localbase.realtime_broadcasts (
  id bigint primary key default nextval('_localbase.realtime_changes_id_seq'),
  topic text not null,
  event text not null,
  payload jsonb,
  sent_at timestamptz not null default clock_timestamp()
);
alter table _localbase.realtime_broadcasts add column if not exists private boolean not null default false;
-- As in the change queue (capture.ts): the sending transaction, by which the readers' cursors move.
alter table _localbase.realtime_broadcasts add column if not exists xid xid8 not null default pg_catalog.pg_current_xact_id();
create index if not exists realtime_broadcasts_xid on _localbase.realtime_broadcasts (xid);
revoke all on _localbase.realtime_broadcasts from public;
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;
-- SECURITY DEFINER: callers reach the queue only through this function. Sending is open to the
-- roles that may already broadcast to any public topic through /realtime/v1 with the API key.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql security definer set search_path = ''
as $$
begin
  if topic is null or event is null then
    raise warning 'ErrorSendingBroadcastMessage: a broadcast needs a topic and an event';
    return;
  end if;
  if pg_catalog.octet_length(payload::text) > ${REALTIME_MAX_BROADCAST_BYTES} then
    raise warning 'ErrorSendingBroadcastMessage: Payload too large: at most ${REALTIME_MAX_BROADCAST_BYTES} bytes per broadcast';
    return;
  end if;
  insert into _localbase.realtime_broadcasts (topic, event, payload, private)
    values (topic, event, payload, coalesce(private, true));
  perform pg_catalog.pg_notify('${WAKEUP_CHANNEL}', '');
end
$$;
revoke execute on function realtime.send(jsonb, text, text, boolean) from public;
grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;
-- Hosted's helper for a row trigger: the change as {old_record, record, operation, table, schema},
-- sent as a private message of the given event to the given topic.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW')
returns void
language plpgsql
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    pg_catalog.jsonb_build_object('old_record', old, 'record', new, 'operation', operation, 'table', table_name,
      'schema', table_schema),
    event_name, topic_name);
end
$$;
revoke execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) from public;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  to anon, authenticated, service_role;`;

export async function installDatabaseBroadcast(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'realtime-send',
    sql: INSTALL_SQL,
    tables: ['_localbase.realtime_broadcasts'],
    functions: [
      'realtime.send(jsonb,text,text,boolean)',
      'realtime.broadcast_changes(text,text,text,text,text,record,record,text)',
    ],
  });
}

export const databaseBroadcastRow = z.object({
  id: z.union([z.string(), z.number()]),
  topic: z.string(),
  event: z.string(),
  payload: z.unknown(),
  private: z.boolean().default(false),
  sent_at: z.coerce.date(),
});
export type DatabaseBroadcast = z.infer<typeof databaseBroadcastRow>;

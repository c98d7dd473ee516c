-- Platform stand-in (LOCAL ONLY): the publication hosted Realtime reads. Migrations add the
-- tables whose changes are broadcast (`alter publication supabase_realtime add table ...`).
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Realtime Authorization: hosted Realtime decides who may join a private channel, and who may
-- broadcast or track presence on it, by RLS policies on realtime.messages, which migrations write
-- (`create policy ... on realtime.messages ... using (realtime.topic() = ...)`). Realtime never
-- keeps rows here; it inserts probe rows in a transaction it rolls back. The columns are hosted
-- Realtime's; hosted partitions the table by day, which a table nobody keeps rows in does not need.
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

create table if not exists realtime.messages (
  id uuid not null default gen_random_uuid(),
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  primary key (id, inserted_at)
);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

-- The topic of the channel being authorized (without `realtime:`), for policies.
create or replace function realtime.topic() returns text
language sql stable
as $$
  select nullif(current_setting('realtime.topic', true), '')::text
$$;
grant execute on function realtime.topic() to anon, authenticated, service_role;

-- Broadcast from the database: hosted Realtime installs `realtime.send(payload, event, topic,
-- private)`, which stores the message in realtime.messages for Realtime to relay to the topic. This
-- stand-in stores it the same way and relays nothing, so a database without a realtime server (the
-- pgTAP suite's) shows what was sent. localbase replaces it at boot with its own, which relays.
-- Created only when missing, so applying these files again never takes localbase's away.
do $$
begin
  if to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
    execute $create$
      create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
      returns void
      language plpgsql security definer set search_path = ''
      as $body$
      begin
        insert into realtime.messages (topic, extension, payload, event, private)
        values (topic, 'broadcast', payload, event, coalesce(private, true));
      end
      $body$
    $create$;
    revoke execute on function realtime.send(jsonb, text, text, boolean) from public;
    grant execute on function realtime.send(jsonb, text, text, boolean) to service_role;
  end if;
end
$$;

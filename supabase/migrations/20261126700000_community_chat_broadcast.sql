-- Live chat on a private broadcast topic per group, sent by the database.
-- Rules: docs/database.md#live-chat. Idempotent: part of community-patch-v6.sql.
--
-- Why not postgres_changes: realtime asks the chat read policy once per subscriber for every
-- message, so a group of 200 pays 200 policy checks before anyone hears a word (p99 90 to 130 ms
-- on the embedded engine). A broadcast on a private channel is authorized once, when the channel
-- joins (and again when its token changes), by the policy on realtime.messages below; a message
-- then costs one send, whatever the group's size. This is what Supabase advises for many
-- subscribers.
--
-- The price of deciding at join: a member who leaves or is removed would keep hearing the topic
-- until her channel's token changes. So the topic is a random name per group, drawn anew whenever
-- a membership ends. New messages go to the new topic, which only members may join. The old topic
-- gets one last event, `rotate`: the members that remain ask for the new topic, join it and read
-- what they missed; the one who left is refused. Neither a student nor an owner can write the
-- topics: they live in `private`, read through `community_get_chat_topic` (members only).
--
-- A message and a removal in two transactions are ordered by the topic row's lock: the message's
-- trigger reads it FOR SHARE, the rotation takes it FOR UPDATE, so a message committed after a
-- removal goes to the new topic, never to the removed member.
--
-- The broadcast carries the columns the chat shows (never `deleted_by`); an UPDATE is a message
-- deleted into a tombstone. The table stays in the supabase_realtime publication, so other clients
-- may still follow it with postgres_changes under the same read policy.

-- Tables -----------------------------------------------------------------------------------------

create table if not exists private.group_chat_topics (
  group_id uuid primary key references public.groups (id) on delete cascade,
  topic text not null unique default 'group-chat:' || gen_random_uuid()::text
);
comment on table private.group_chat_topics is
  'internal: the private realtime topic each group''s chat is broadcast on; drawn anew when a membership ends.';
revoke all on private.group_chat_topics from public, anon, authenticated;

insert into private.group_chat_topics (group_id)
select g.id from public.groups g
on conflict (group_id) do nothing;

-- Helpers ----------------------------------------------------------------------------------------

create or replace function private.create_group_chat_topic() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into private.group_chat_topics (group_id) values (new.id) on conflict (group_id) do nothing;
  return null;
end
$$;
comment on function private.create_group_chat_topic() is
  'trigger: draws the chat topic of a new group.';

create or replace function private.broadcast_group_chat_message() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_topic text;
begin
  select t.topic into v_topic from private.group_chat_topics t where t.group_id = new.group_id for share;
  if v_topic is null then
    return null;
  end if;
  perform realtime.send(
    pg_catalog.jsonb_build_object(
      'operation', tg_op,
      'schema', tg_table_schema,
      'table', tg_table_name,
      'record', pg_catalog.jsonb_build_object(
        'id', new.id, 'group_id', new.group_id, 'sender_id', new.sender_id, 'content', new.content,
        'created_at', new.created_at, 'deleted_at', new.deleted_at)),
    tg_op, v_topic, true);
  return null;
end
$$;
comment on function private.broadcast_group_chat_message() is
  'trigger: sends a new or deleted chat message to its group''s private topic.';

create or replace function private.rotate_group_chat_topic() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_old text;
begin
  -- A group being deleted takes its topic with it: nothing is left to hear.
  if not exists (select 1 from public.groups g where g.id = old.group_id) then
    return null;
  end if;
  select t.topic into v_old from private.group_chat_topics t where t.group_id = old.group_id for update;
  if v_old is null then
    return null;
  end if;
  update private.group_chat_topics
     set topic = 'group-chat:' || pg_catalog.gen_random_uuid()::text
   where group_id = old.group_id;
  perform realtime.send('{}'::jsonb, 'rotate', v_old, true);
  return null;
end
$$;
comment on function private.rotate_group_chat_topic() is
  'trigger: when a membership ends, draws the group''s chat topic anew and tells the old topic to move.';

-- Whether the caller may hear a chat topic: it is the current topic of one of her groups. Asked by
-- the policy on realtime.messages when a channel joins; answers about the caller only.
create or replace function private.may_hear_group_chat(p_topic text) returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return exists (
    select 1
    from private.group_chat_topics t
    join public.group_members m on m.group_id = t.group_id
    where t.topic = p_topic and m.user_id = (select auth.uid())
  );
end
$$;
comment on function private.may_hear_group_chat(text) is
  'policy helper: whether p_topic is the current chat topic of one of the caller''s groups.';

revoke execute on function private.create_group_chat_topic(), private.broadcast_group_chat_message(),
  private.rotate_group_chat_topic(), private.may_hear_group_chat(text) from public, anon, authenticated;
grant execute on function private.may_hear_group_chat(text) to authenticated;

-- Triggers ---------------------------------------------------------------------------------------

drop trigger if exists groups_create_chat_topic on public.groups;
create trigger groups_create_chat_topic after insert on public.groups
  for each row execute function private.create_group_chat_topic();

drop trigger if exists group_chat_messages_broadcast on public.group_chat_messages;
create trigger group_chat_messages_broadcast after insert or update on public.group_chat_messages
  for each row execute function private.broadcast_group_chat_message();

drop trigger if exists group_members_rotate_chat_topic on public.group_members;
create trigger group_members_rotate_chat_topic after delete on public.group_members
  for each row execute function private.rotate_group_chat_topic();

-- Policies ---------------------------------------------------------------------------------------

-- Members may join their group's current topic to hear it. No policy lets anyone send on it: only
-- the triggers above do (realtime.send as the definer), so a member cannot forge a message.
drop policy if exists "members hear their group's chat" on realtime.messages;
create policy "members hear their group's chat" on realtime.messages
  for select to authenticated
  using (extension = 'broadcast' and private.may_hear_group_chat((select realtime.topic())));

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.community_get_chat_topic(p_group_id uuid) returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_topic text;
begin
  if (select auth.uid()) is null or not public._is_group_member(p_group_id, (select auth.uid())) then
    raise exception 'not_group_member' using errcode = 'P0001', hint = 'only members hear a group''s chat';
  end if;
  select t.topic into v_topic from private.group_chat_topics t where t.group_id = p_group_id;
  return v_topic;
end
$$;
comment on function public.community_get_chat_topic(uuid) is
  'rpc: the private realtime topic the group''s chat is broadcast on (events INSERT, UPDATE, rotate). Members only.';

revoke execute on function public.community_get_chat_topic(uuid) from public, anon;
grant execute on function public.community_get_chat_topic(uuid) to authenticated;

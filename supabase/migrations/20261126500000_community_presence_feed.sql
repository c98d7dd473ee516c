-- The presence feed: what a group board and the buddy overview show of each student's presence,
-- one row per student, readable by her fellow group members and accepted buddies, so a realtime
-- subscription tells them the moment she starts, pauses or stops (user_presence is readable only
-- by its owner, so a subscription on it delivers nothing to anyone else).
-- Rules: docs/database.md#presence-feed.
--
-- Why a table with a read policy, not a broadcast from the database: the rule of who may see whom
-- stays one RLS policy that every reader goes through (the Data API, realtime's per-subscriber
-- check, a script with supabase-js), localbase and a hosted project apply it alike, and a
-- subscriber that reconnects reads the rows again. realtime.send / broadcast_changes would need
-- private channels authorized by policies on realtime.messages, which localbase refuses, and a
-- public topic is open to anyone holding the anon key.
--
-- What a row holds is exactly the board's presence object and nothing more: state, and subject,
-- task and session start only as far as the student's own switches share them (the expressions
-- of community_get_group_board). No timestamp of its own: a row says nothing the board does not.
-- A student in stealth mode has no row at all (entering stealth deletes it; leaving it writes a
-- fresh one), nor does one who never reported presence. The primary key is a uuid drawn anew for
-- each row, not the user id: realtime sends a DELETE to every subscriber of the table, whatever
-- RLS says, with the old row's primary key, and a random key tells a stranger nothing.
--
-- Written only by triggers (SECURITY DEFINER): after every write to user_presence (the heartbeat,
-- the expiry sweep) and after a change of privacy switches. A write that would not change what a
-- row shows (the 30-second heartbeat of an unchanged session) writes nothing, so it sends no event.
-- The feed is a signal: the screens read the board or overview RPC again when a row changes.
-- Idempotent: part of community-patch-v6.sql.

create table if not exists public.presence_feed (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references public.users (id) on delete cascade,
  state text not null check (state in ('studying', 'break', 'idle', 'offline')),
  subject text,
  task text,
  since timestamptz
);

-- Whose presence the caller may follow: her own, a fellow member of any of her groups, an
-- accepted buddy. It answers about the caller only (auth.uid()), so it reveals nothing it is
-- asked about anyone else; private, so it is no RPC.
create or replace function private.presence_visible_to_caller(p_user uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select p_user = (select auth.uid())
    or exists (
      select 1
      from public.group_members mine
      join public.group_members theirs on theirs.group_id = mine.group_id and theirs.user_id = p_user
      where mine.user_id = (select auth.uid()))
    or exists (
      select 1 from public.community_friends c
      where least(c.user_id, c.friend_id) = least(p_user, (select auth.uid()))
        and greatest(c.user_id, c.friend_id) = greatest(p_user, (select auth.uid()))
        and c.status = 'accepted')
$$;

-- Brings one student's feed row in line with her presence and switches.
create or replace function private.sync_presence_feed(p_user uuid) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_privacy jsonb;
  v_presence public.user_presence%rowtype;
  v_live boolean;
  v_state text;
begin
  select e.privacy into v_privacy from public.community_enrollments e where e.user_id = p_user;
  select * into v_presence from public.user_presence p where p.user_id = p_user;
  if not found or coalesce((v_privacy ->> 'stealthMode')::boolean, false) then
    delete from public.presence_feed f where f.user_id = p_user;
    return;
  end if;
  v_live := v_presence.last_seen >= now() - interval '2 minutes';
  v_state := private.effective_presence_status(v_presence.status, v_presence.last_seen);
  insert into public.presence_feed as f (user_id, state, subject, task, since)
    values (
      p_user,
      v_state,
      case when v_live and coalesce((v_privacy ->> 'shareCurrentSubject')::boolean, false)
           then v_presence.subject_name end,
      case when v_live and coalesce((v_privacy ->> 'shareTasks')::boolean, false)
           then v_presence.task_title end,
      case when v_live and coalesce((v_privacy ->> 'shareExactTime')::boolean, false)
                and v_state in ('studying', 'break')
           then v_presence.session_started_at end)
    on conflict (user_id) do update
      set state = excluded.state, subject = excluded.subject, task = excluded.task, since = excluded.since
      where (f.state, f.subject, f.task, f.since)
            is distinct from (excluded.state, excluded.subject, excluded.task, excluded.since);
end
$$;

create or replace function private.presence_feed_follows_presence() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.sync_presence_feed(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
  return null;
end
$$;

drop trigger if exists trg_presence_feed_follows_presence on public.user_presence;
create trigger trg_presence_feed_follows_presence after insert or update or delete on public.user_presence
  for each row execute function private.presence_feed_follows_presence();

drop trigger if exists trg_presence_feed_follows_privacy on public.community_enrollments;
create trigger trg_presence_feed_follows_privacy after update of privacy on public.community_enrollments
  for each row when (old.privacy is distinct from new.privacy)
  execute function private.presence_feed_follows_presence();

-- Rows for the presence that exists already.
select private.sync_presence_feed(p.user_id) from public.user_presence p;

alter table public.presence_feed enable row level security;

drop policy if exists "followers read presence" on public.presence_feed;
create policy "followers read presence" on public.presence_feed
  for select to authenticated using (private.presence_visible_to_caller(user_id));

do $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') and not exists (
    select 1 from pg_publication_tables
    where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'presence_feed'
  ) then
    alter publication supabase_realtime add table public.presence_feed;
  end if;
end
$$;

revoke all on public.presence_feed from anon, authenticated;
grant select on public.presence_feed to authenticated;
revoke execute on function private.sync_presence_feed(uuid), private.presence_feed_follows_presence()
  from public, anon, authenticated;
revoke execute on function private.presence_visible_to_caller(uuid) from public, anon;
grant execute on function private.presence_visible_to_caller(uuid) to authenticated;

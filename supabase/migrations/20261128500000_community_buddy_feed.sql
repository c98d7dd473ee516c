-- The buddy feed: one row per student, touched whenever what she may read of her buddy connections
-- changes (a request arrives, is accepted, declined or cancelled, a buddy is removed), so a realtime
-- subscription tells her Buddies page at once, on both sides. Rules: docs/database.md#buddy-feed.
--
-- Why a row of her own, not community_friends in the publication: realtime sends a DELETE of a
-- table to every subscriber whatever RLS says, and a block is an UPDATE that the blocked student
-- may not read, so following community_friends itself would tell a blocked student nothing while
-- telling a removed one at once, which gives the block away. Here each side's row is touched when
-- that side's own view of the pair changes, computed with the read policy's rule ("users read
-- their connections": her own rows, and rows towards her unless they block her). A block of a
-- buddy therefore reaches the blocked student exactly as a removal does (the buddy is gone from
-- her view), and a block of someone who was no buddy reaches nobody but the blocker. A row holds
-- nothing but her id and when her view last changed; the page reads community_get_overview again.
--
-- Written only by the trigger (SECURITY DEFINER); read by its owner only. Idempotent: part of
-- community-patch-v6.sql.

create table if not exists public.buddy_feed (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references public.users (id) on delete cascade,
  changed_at timestamptz not null default now()
);
comment on table public.buddy_feed is
  'One row per student, touched when what she may read of her buddy connections changes (realtime signal).';

-- What one community_friends row shows a viewer, as the read policy decides it: the row's direction
-- and status when she may read it, null when she may not (not hers, or a block placed on her).
create or replace function private.buddy_row_seen_by(p_viewer uuid, p_user uuid, p_friend uuid, p_status text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    when p_viewer = p_user then 'out:' || p_status
    when p_viewer = p_friend and p_status <> 'blocked' then 'in:' || p_status
  end
$$;

create or replace function private.touch_buddy_feed(p_user uuid) returns void
language sql
security definer
set search_path = ''
as $$
  -- An account being deleted takes its connections with it: its own row is going too.
  insert into public.buddy_feed (user_id, changed_at)
    select p_user, clock_timestamp() where exists (select 1 from public.users where id = p_user)
    on conflict (user_id) do update set changed_at = excluded.changed_at
$$;

create or replace function private.buddy_feed_follows_connections() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_viewer uuid;
  v_before text;
  v_after text;
begin
  for v_viewer in
    select distinct viewer from unnest(array[old.user_id, old.friend_id, new.user_id, new.friend_id]) as viewer
    where viewer is not null
  loop
    v_before := case when tg_op = 'INSERT' then null
                     else private.buddy_row_seen_by(v_viewer, old.user_id, old.friend_id, old.status) end;
    v_after := case when tg_op = 'DELETE' then null
                    else private.buddy_row_seen_by(v_viewer, new.user_id, new.friend_id, new.status) end;
    if v_before is distinct from v_after then
      perform private.touch_buddy_feed(v_viewer);
    end if;
  end loop;
  return null;
end
$$;

drop trigger if exists trg_buddy_feed_follows_connections on public.community_friends;
create trigger trg_buddy_feed_follows_connections after insert or update or delete on public.community_friends
  for each row execute function private.buddy_feed_follows_connections();

alter table public.buddy_feed enable row level security;

drop policy if exists "students read their own buddy feed" on public.buddy_feed;
create policy "students read their own buddy feed" on public.buddy_feed
  for select to authenticated using (user_id = (select auth.uid()));

do $$
begin
  if exists (select 1 from pg_publication where pubname = 'supabase_realtime') and not exists (
    select 1 from pg_publication_tables
    where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'buddy_feed'
  ) then
    alter publication supabase_realtime add table public.buddy_feed;
  end if;
end
$$;

revoke all on public.buddy_feed from anon, authenticated;
grant select on public.buddy_feed to authenticated;
revoke execute on function private.buddy_row_seen_by(uuid, uuid, uuid, text),
  private.touch_buddy_feed(uuid), private.buddy_feed_follows_connections()
  from public, anon, authenticated;

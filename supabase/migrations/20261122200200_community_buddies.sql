-- Buddies: community_friends holds requests and connections, one row per pair in the direction of
-- the request. pending -> accepted | declined; blocked (set by remove with p_block, blocker in user_id).
-- Idempotent: part of community-patch-v6.sql.
-- Rules: docs/database.md#buddies.

create table if not exists public.community_friends (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  friend_id uuid not null references public.users (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'accepted', 'declined', 'blocked')),
  created_at timestamptz not null default now(),
  accepted_at timestamptz,
  updated_at timestamptz not null default now(),
  check (user_id <> friend_id)
);

-- One row per unordered pair, whoever asked first.
create unique index if not exists community_friends_pair_key
  on public.community_friends (least(user_id, friend_id), greatest(user_id, friend_id));
create index if not exists community_friends_friend_idx on public.community_friends (friend_id, status);
create index if not exists community_friends_user_idx on public.community_friends (user_id, status);

drop trigger if exists trg_touch_community_friends on public.community_friends;
create trigger trg_touch_community_friends before update on public.community_friends
  for each row execute function private.touch_updated_at();

-- Whether two users are accepted buddies; used by overview, alerts and policies.
create or replace function private.are_buddies(p_a uuid, p_b uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1 from public.community_friends
    where least(user_id, friend_id) = least(p_a, p_b)
      and greatest(user_id, friend_id) = greatest(p_a, p_b)
      and status = 'accepted')
$$;

-- Resolves a handle by the three lookup keys; null when nobody has it.
create or replace function private.find_user_by_handle(p_handle text) returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(
    (select user_id from public.user_profiles where lower(handle) = lower(btrim(p_handle)) limit 1),
    (select user_id from public.user_profiles
      where lower(profile_data ->> 'community_handle') = lower(btrim(p_handle)) limit 1),
    (select id from public.users where lower(username) = lower(btrim(p_handle)) limit 1))
$$;

-- Connects two users (request or invite). A block in either direction answers exactly like an
-- unknown user, so a blocked person cannot learn of the block.
create or replace function private.connect_or_request(p_from uuid, p_to uuid, p_accept boolean)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.community_friends%rowtype;
begin
  if p_from is null or p_to is null then
    raise exception 'user_not_found' using errcode = 'P0002', hint = 'no user has that handle';
  end if;
  if p_from = p_to then
    raise exception 'cannot_befriend_self' using errcode = 'P0020', hint = 'you cannot add yourself';
  end if;
  select * into v_row from public.community_friends
    where least(user_id, friend_id) = least(p_from, p_to)
      and greatest(user_id, friend_id) = greatest(p_from, p_to)
    for update;
  if found and v_row.status = 'blocked' then
    raise exception 'user_not_found' using errcode = 'P0002', hint = 'no user has that handle';
  end if;
  if found and v_row.status = 'accepted' then
    if p_accept then return v_row.id; end if;
    raise exception 'already_buddies' using errcode = 'P0021', hint = 'you are already buddies';
  end if;
  if found and v_row.status = 'pending' then
    -- An invite redeemed, or a request crossing the other's pending request, accepts it.
    if p_accept or v_row.user_id = p_to then
      update public.community_friends set status = 'accepted', accepted_at = now()
        where id = v_row.id;
      return v_row.id;
    end if;
    raise exception 'request_pending' using errcode = 'P0022', hint = 'a request is already waiting';
  end if;
  if found then
    -- A declined request may be asked again: it becomes a fresh request from the new sender.
    update public.community_friends
      set user_id = p_from, friend_id = p_to,
          status = case when p_accept then 'accepted' else 'pending' end,
          accepted_at = case when p_accept then now() end, created_at = now()
      where id = v_row.id;
    return v_row.id;
  end if;
  insert into public.community_friends (user_id, friend_id, status, accepted_at)
    values (p_from, p_to, case when p_accept then 'accepted' else 'pending' end,
            case when p_accept then now() end)
    returning id into v_row.id;
  return v_row.id;
end
$$;

-- Called by community_redeem_invite (the invites migration) for a buddy invite.
create or replace function private.connect_buddies(p_inviter uuid, p_redeemer uuid) returns uuid
language sql
security definer
set search_path = ''
as $$
  select private.connect_or_request(p_redeemer, p_inviter, true)
$$;

create or replace function public.community_request_buddy(p_handle text) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  return private.connect_or_request(v_uid, private.find_user_by_handle(p_handle), false);
end
$$;
comment on function public.community_request_buddy(text) is
  'rpc: sends a buddy request to the user with that handle, e-mail/username; raises user_not_found.';

create or replace function public.community_respond_buddy(p_connection_id uuid, p_accept boolean)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_status text;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  update public.community_friends
    set status = case when p_accept then 'accepted' else 'declined' end,
        accepted_at = case when p_accept then now() end
    where id = p_connection_id and friend_id = v_uid and status = 'pending'
    returning status into v_status;
  if v_status is null then
    raise exception 'request_not_found' using errcode = 'P0023',
      hint = 'only the recipient of a pending request can answer it';
  end if;
  return v_status;
end
$$;
comment on function public.community_respond_buddy(uuid, boolean) is
  'rpc: the recipient accepts or declines a pending buddy request.';

create or replace function public.community_remove_buddy(p_other_user uuid, p_block boolean default false)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_row public.community_friends%rowtype;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  select * into v_row from public.community_friends
    where least(user_id, friend_id) = least(v_uid, p_other_user)
      and greatest(user_id, friend_id) = greatest(v_uid, p_other_user)
    for update;
  -- A block placed by the other side cannot be lifted or learned of by this caller.
  if found and v_row.status = 'blocked' and v_row.user_id <> v_uid then
    return 'removed';
  end if;
  if coalesce(p_block, false) then
    if not exists (select 1 from public.users where id = p_other_user) or p_other_user = v_uid then
      raise exception 'user_not_found' using errcode = 'P0002', hint = 'no such user';
    end if;
    insert into public.community_friends (user_id, friend_id, status)
      values (v_uid, p_other_user, 'blocked')
      on conflict (least(user_id, friend_id), greatest(user_id, friend_id)) do update
        set user_id = excluded.user_id, friend_id = excluded.friend_id, status = 'blocked',
            accepted_at = null;
    return 'blocked';
  end if;
  if not found then
    raise exception 'connection_not_found' using errcode = 'P0024', hint = 'you are not connected';
  end if;
  delete from public.community_friends where id = v_row.id;
  return 'removed';
end
$$;
comment on function public.community_remove_buddy(uuid, boolean) is
  'rpc: either party removes a connection or request, optionally blocking the other.';

-- Policies: each side reads its rows, except that the blocked side never sees the block.
alter table public.community_friends enable row level security;

drop policy if exists "users read their connections" on public.community_friends;
create policy "users read their connections" on public.community_friends
  for select to authenticated
  using (user_id = (select auth.uid())
         or (friend_id = (select auth.uid()) and status <> 'blocked'));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.community_friends from anon;
revoke insert, update, delete, truncate, references, trigger on public.community_friends from authenticated;
revoke execute on function private.are_buddies(uuid, uuid), private.find_user_by_handle(text),
  private.connect_or_request(uuid, uuid, boolean), private.connect_buddies(uuid, uuid)
  from public, anon, authenticated;
revoke execute on function public.community_request_buddy(text),
  public.community_respond_buddy(uuid, boolean), public.community_remove_buddy(uuid, boolean)
  from public, anon;
grant execute on function public.community_request_buddy(text),
  public.community_respond_buddy(uuid, boolean), public.community_remove_buddy(uuid, boolean)
  to authenticated;

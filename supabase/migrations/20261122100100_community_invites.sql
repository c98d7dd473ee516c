-- Community invites and join requests: group_invites, buddy_invites (closed store), join requests,
-- discovery, and the create / preview / redeem / respond RPCs.
-- Rules: docs/database.md#invites-and-join-requests.
--
-- Validity rule: (expires_at is null or expires_at > now()) and (max_uses is null or uses_count <
-- max_uses). Redeem locks the invite row (for update), so concurrent redeems never pass max_uses.
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.group_invites (
  token text primary key default encode(extensions.gen_random_bytes(18), 'hex'),
  group_id uuid not null references public.groups (id) on delete cascade,
  created_by uuid references public.users (id) on delete set null,
  expires_at timestamptz,
  max_uses integer check (max_uses is null or max_uses >= 1),
  uses_count integer not null default 0 check (uses_count >= 0),
  created_at timestamptz not null default now()
);

create table if not exists public.buddy_invites (
  token text primary key default encode(extensions.gen_random_bytes(18), 'hex'),
  created_by uuid not null references public.users (id) on delete cascade,
  expires_at timestamptz,
  max_uses integer check (max_uses is null or max_uses >= 1),
  uses_count integer not null default 0 check (uses_count >= 0),
  created_at timestamptz not null default now()
);
comment on table public.buddy_invites is
  'Pending buddy-invite links. RLS on, zero policies: only the invite RPCs (definer rights) touch it.';

create table if not exists public.community_join_requests (
  id uuid primary key default gen_random_uuid(),
  group_id uuid not null references public.groups (id) on delete cascade,
  user_id uuid not null references public.users (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'accepted', 'declined')),
  created_at timestamptz not null default now(),
  responded_at timestamptz,
  responded_by uuid references public.users (id) on delete set null
);

-- Indexes ----------------------------------------------------------------------------------------

create index if not exists group_invites_group_id_idx on public.group_invites (group_id);
create index if not exists buddy_invites_created_by_idx on public.buddy_invites (created_by);
create unique index if not exists community_join_requests_one_pending_key
  on public.community_join_requests (group_id, user_id) where status = 'pending';
create index if not exists community_join_requests_user_id_idx on public.community_join_requests (user_id);
-- Discovery lists by member_count desc, id: walking this index in order lets a search stop after
-- the first page of matches instead of sorting every visible group.
create index if not exists groups_discovery_order_idx on public.groups (member_count desc, id);

-- Policies ---------------------------------------------------------------------------------------

alter table public.group_invites enable row level security;
alter table public.buddy_invites enable row level security;
alter table public.community_join_requests enable row level security;

drop policy if exists "owners read their group's invites" on public.group_invites;
create policy "owners read their group's invites" on public.group_invites
  for select to authenticated
  using (public._has_group_role(group_id, (select auth.uid()), array['owner']));

drop policy if exists "requesters and owners read join requests" on public.community_join_requests;
create policy "requesters and owners read join requests" on public.community_join_requests
  for select to authenticated
  using (user_id = (select auth.uid()) or public._has_group_role(group_id, (select auth.uid()), array['owner']));

-- RPCs -------------------------------------------------------------------------------------------

create or replace function private.request_to_join(p_group_id uuid, p_user_id uuid) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.community_join_requests (group_id, user_id)
  values (p_group_id, p_user_id)
  on conflict (group_id, user_id) where status = 'pending' do nothing;
end
$$;

create or replace function public.community_respond_join_request(p_request_id uuid, p_accept boolean)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_request public.community_join_requests;
  v_uid uuid;
begin
  select * into v_request from public.community_join_requests where id = p_request_id for update;
  if not found or v_request.status <> 'pending' then
    raise exception 'request_not_found' using errcode = 'P0002', hint = 'no pending join request has that id';
  end if;
  v_uid := private.require_group_owner(v_request.group_id);
  update public.community_join_requests
  set status = case when p_accept then 'accepted' else 'declined' end,
      responded_at = now(), responded_by = v_uid
  where id = p_request_id;
  if p_accept then
    insert into public.group_members (group_id, user_id, role)
    values (v_request.group_id, v_request.user_id, 'member')
    on conflict do nothing;
  end if;
end
$$;
comment on function public.community_respond_join_request(uuid, boolean) is
  'rpc: an owner accepts (adds the member) or declines a pending join request.';

create or replace function public.community_discover_groups(
  p_search text default null, p_limit integer default 20, p_offset integer default 0
) returns table (
  id uuid, slug text, name text, description text, icon_url text, exam_name text, exam_date date,
  subjects text[], visibility text, join_policy text, member_count integer, is_member boolean
)
language sql
stable
security definer
set search_path = ''
as $$
  with mine as (select private.my_group_ids() as group_id)
  select g.id, g.slug, g.name, g.description, g.icon_url, g.exam_name, g.exam_date, g.subjects,
         g.visibility, g.join_policy, g.member_count, g.id in (select group_id from mine)
  from public.groups g
  where (g.visibility = 'public' or g.id in (select group_id from mine))
    and g.archived_at is null
    and (coalesce(btrim(p_search), '') = ''
         or g.name ilike '%' || btrim(p_search) || '%'
         or g.slug ilike '%' || btrim(p_search) || '%')
  order by g.member_count desc, g.id
  limit least(greatest(coalesce(p_limit, 20), 1), 100)
  offset greatest(coalesce(p_offset, 0), 0)
$$;
comment on function public.community_discover_groups(text, integer, integer) is
  'rpc: public groups plus the caller''s private groups, filtered by a search term; never another private group.';

create or replace function public.community_create_invite(p_type text, p_target_id uuid, p_days integer default 7)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_expires timestamptz := case when p_days is null then null else now() + make_interval(days => p_days) end;
  v_token text;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to create an invite';
  end if;
  if p_days is not null and p_days not between 1 and 365 then
    raise exception 'invalid_days' using errcode = 'P0004', hint = 'an invite lasts 1 to 365 days, or null for no expiry';
  end if;
  if p_type = 'group' then
    perform private.require_group_owner(p_target_id);
    insert into public.group_invites (group_id, created_by, expires_at)
    values (p_target_id, v_uid, v_expires) returning token into v_token;
  elsif p_type = 'buddy' then
    if p_target_id is not null and p_target_id <> v_uid then
      raise exception 'invalid_target' using errcode = 'P0004', hint = 'a buddy invite is created for yourself';
    end if;
    insert into public.buddy_invites (created_by, expires_at)
    values (v_uid, v_expires) returning token into v_token;
  else
    raise exception 'invalid_invite_type' using errcode = 'P0004', hint = 'an invite type is group or buddy';
  end if;
  return v_token;
end
$$;
comment on function public.community_create_invite(text, uuid, integer) is
  'rpc: creates a group invite (owners only) or a buddy invite link; returns the token.';

create or replace function public.community_preview_invite(p_token text) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_group_invite public.group_invites;
  v_buddy_invite public.buddy_invites;
  v_group public.groups;
begin
  select * into v_group_invite from public.group_invites i
  where i.token = p_token
    and (i.expires_at is null or i.expires_at > now())
    and (i.max_uses is null or i.uses_count < i.max_uses);
  if found then
    select * into v_group from public.groups g where g.id = v_group_invite.group_id;
    return jsonb_build_object(
      'valid', true, 'type', 'group', 'group_id', v_group.id, 'group_name', v_group.name,
      'member_count', v_group.member_count, 'inviter', private.display_name_of(v_group_invite.created_by));
  end if;
  select * into v_buddy_invite from public.buddy_invites i
  where i.token = p_token
    and (i.expires_at is null or i.expires_at > now())
    and (i.max_uses is null or i.uses_count < i.max_uses);
  if found then
    return jsonb_build_object(
      'valid', true, 'type', 'buddy', 'inviter', private.display_name_of(v_buddy_invite.created_by));
  end if;
  -- Unknown, expired and used-up look alike: nothing about the target leaks.
  return jsonb_build_object('valid', false);
end
$$;
comment on function public.community_preview_invite(text) is
  'rpc: what an invite token leads to (group name, member count, inviter) or {valid:false}; works before joining.';

create or replace function public.get_invite_details(p_token text) returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select public.community_preview_invite(p_token)
$$;
comment on function public.get_invite_details(text) is 'rpc: the same as community_preview_invite.';

create or replace function private.display_name_of(p_user_id uuid) returns text
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(p.display_name, p.handle, 'a student')
  from public.users u left join public.user_profiles p on p.user_id = u.id
  where u.id = p_user_id
$$;

create or replace function public.community_redeem_invite(p_token text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_group_invite public.group_invites;
  v_buddy_invite public.buddy_invites;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to redeem an invite';
  end if;
  select * into v_group_invite from public.group_invites where token = p_token for update;
  if found then
    if public._is_group_member(v_group_invite.group_id, v_uid) then
      return jsonb_build_object('type', 'group', 'group_id', v_group_invite.group_id, 'already_member', true);
    end if;
    if not ((v_group_invite.expires_at is null or v_group_invite.expires_at > now())
            and (v_group_invite.max_uses is null or v_group_invite.uses_count < v_group_invite.max_uses)) then
      raise exception 'invalid_invite' using errcode = 'P0002', hint = 'this invite is invalid, expired or used up';
    end if;
    insert into public.group_members (group_id, user_id, role) values (v_group_invite.group_id, v_uid, 'member');
    update public.group_invites set uses_count = uses_count + 1 where token = p_token;
    return jsonb_build_object('type', 'group', 'group_id', v_group_invite.group_id, 'already_member', false);
  end if;
  select * into v_buddy_invite from public.buddy_invites where token = p_token for update;
  if not found
     or not ((v_buddy_invite.expires_at is null or v_buddy_invite.expires_at > now())
             and (v_buddy_invite.max_uses is null or v_buddy_invite.uses_count < v_buddy_invite.max_uses)) then
    raise exception 'invalid_invite' using errcode = 'P0002', hint = 'this invite is invalid, expired or used up';
  end if;
  if v_buddy_invite.created_by = v_uid then
    raise exception 'own_invite' using errcode = 'P0004', hint = 'share the link with someone else';
  end if;
  update public.buddy_invites set uses_count = uses_count + 1 where token = p_token;
  -- private.connect_buddies belongs to the buddies migration; resolved at run time.
  return jsonb_build_object('type', 'buddy',
    'connection_id', private.connect_buddies(v_buddy_invite.created_by, v_uid));
end
$$;
comment on function public.community_redeem_invite(text) is
  'rpc: redeems a valid invite: joins the group (uses_count + 1) or connects the caller with the inviter as buddies.';

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.group_invites, public.buddy_invites, public.community_join_requests from anon;
revoke all on public.buddy_invites from authenticated;
revoke insert, update, delete, truncate, references, trigger
  on public.group_invites, public.community_join_requests from authenticated;

revoke execute on function private.request_to_join(uuid, uuid), private.display_name_of(uuid)
  from public, anon, authenticated;

revoke execute on function public.community_respond_join_request(uuid, boolean),
  public.community_discover_groups(text, integer, integer),
  public.community_create_invite(text, uuid, integer), public.community_redeem_invite(text)
  from public, anon;
grant execute on function public.community_respond_join_request(uuid, boolean),
  public.community_discover_groups(text, integer, integer),
  public.community_create_invite(text, uuid, integer), public.community_redeem_invite(text)
  to authenticated, service_role;

-- Preview works before sign-in (the invite landing page), so anon may call it.
revoke execute on function public.community_preview_invite(text), public.get_invite_details(text) from public;
grant execute on function public.community_preview_invite(text), public.get_invite_details(text)
  to anon, authenticated, service_role;

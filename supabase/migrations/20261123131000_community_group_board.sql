-- What the app's group page and owner tools read and do that no earlier RPC offered: the live group
-- board (members, roles, who studies now as far as each one shares), owners' list of join requests,
-- a requester cancelling a pending request, and an owner revoking an invite.
-- Rules: docs/database.md#groups and docs/database.md#invites-and-join-requests.
--
-- Why RPCs: user_profiles and user_presence are readable only by their owner, so a member cannot
-- read another member's name or presence directly; a board built from them must apply each
-- member's own privacy switches, exactly as the buddy overview does for buddies:
--   stealthMode          -> state offline, no subject, task or start time;
--   shareCurrentSubject  -> presence.subject;   shareTasks -> presence.task;
--   shareExactTime       -> presence.since (when the session started) and minutesToday.
-- A withheld field is null. Presence is live only within two minutes, as everywhere else.
--
-- The board's "studying for 25 min" needs session_started_at to describe the current session. A
-- heartbeat keeps an existing start, so without more a start would stay from the first session
-- ever: an offline row now holds no session. Going offline (the app's heartbeat on finish,
-- sign-out and page hide, or the expiry sweep after a crash) clears the start, and the next
-- session's first heartbeat supplies its own.
-- Idempotent: part of community-patch-v6.sql.

-- Triggers ---------------------------------------------------------------------------------------

create or replace function private.end_presence_session() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.status = 'offline' then
    new.session_started_at := null;
  end if;
  return new;
end
$$;

drop trigger if exists trg_end_presence_session on public.user_presence;
create trigger trg_end_presence_session before insert or update on public.user_presence
  for each row execute function private.end_presence_session();

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.community_get_group_board(p_group_id uuid) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
begin
  if v_uid is null or not public._is_group_member(p_group_id, v_uid) then
    raise exception 'not_group_member' using errcode = 'P0001', hint = 'only members see a group''s board';
  end if;
  return coalesce((
    select jsonb_agg(board.entry order by board.joined_at, board.user_id)
    from (
      select m.joined_at, m.user_id, jsonb_build_object(
          'userId', m.user_id,
          'handle', coalesce(pr.handle, pr.profile_data ->> 'community_handle'),
          'displayName', pr.display_name,
          'avatarUrl', pr.avatar_url,
          'role', m.role,
          'joinedAt', m.joined_at,
          'you', m.user_id = v_uid,
          'minutesToday', case when sw.share_time then coalesce(ds.minutes, 0) end,
          'presence', jsonb_build_object(
            'state', st.state,
            'subject', case when not sw.stealth and sw.share_subject and sw.live then p.subject_name end,
            'task', case when not sw.stealth and sw.share_tasks and sw.live then p.task_title end,
            'since', case when not sw.stealth and sw.share_time and sw.live and st.state in ('studying', 'break')
                          then p.session_started_at end)) as entry
      from public.group_members m
      left join public.user_profiles pr on pr.user_id = m.user_id
      left join public.community_enrollments e on e.user_id = m.user_id
      left join public.user_presence p on p.user_id = m.user_id
      cross join lateral (select
          coalesce((e.privacy ->> 'stealthMode')::boolean, false) as stealth,
          coalesce((e.privacy ->> 'shareTasks')::boolean, false) as share_tasks,
          coalesce((e.privacy ->> 'shareExactTime')::boolean, false) as share_time,
          coalesce((e.privacy ->> 'shareCurrentSubject')::boolean, false) as share_subject,
          coalesce(p.last_seen >= now() - interval '2 minutes', false) as live) sw
      cross join lateral (select
          case when sw.stealth then 'offline'
               else coalesce(private.effective_presence_status(p.status, p.last_seen), 'offline') end as state) st
      left join public.daily_user_stats ds
        on sw.share_time and ds.user_id = m.user_id and ds.study_day = private.study_day_of(m.user_id, now())
      where m.group_id = p_group_id
    ) board
  ), '[]'::jsonb);
end
$$;
comment on function public.community_get_group_board(uuid) is
  'rpc: a group''s members with roles, names and presence, each filtered by that member''s own privacy switches; members only.';

create or replace function public.community_get_join_requests(p_group_id uuid) returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  perform private.require_group_owner(p_group_id);
  return coalesce((
    select jsonb_agg(jsonb_build_object(
             'id', r.id,
             'userId', r.user_id,
             'handle', coalesce(pr.handle, pr.profile_data ->> 'community_handle'),
             'displayName', pr.display_name,
             'avatarUrl', pr.avatar_url,
             'createdAt', r.created_at)
           order by r.created_at, r.id)
    from public.community_join_requests r
    left join public.user_profiles pr on pr.user_id = r.user_id
    where r.group_id = p_group_id and r.status = 'pending'
  ), '[]'::jsonb);
end
$$;
comment on function public.community_get_join_requests(uuid) is
  'rpc: the pending join requests of a group, with each requester''s handle and name; owners only.';

create or replace function public.community_cancel_join_request(p_group_id uuid) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  delete from public.community_join_requests
    where group_id = p_group_id and user_id = v_uid and status = 'pending';
  if not found then
    raise exception 'request_not_found' using errcode = 'P0002', hint = 'you have no pending request for that group';
  end if;
end
$$;
comment on function public.community_cancel_join_request(uuid) is
  'rpc: the requester withdraws their own pending join request.';

-- An unknown token and another group's token answer alike, so revoking reveals nothing.
create or replace function public.community_revoke_invite(p_token text) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  delete from public.group_invites i
    where i.token = p_token and public._has_group_role(i.group_id, v_uid, array['owner']);
  if not found then
    raise exception 'invite_not_found' using errcode = 'P0002', hint = 'no invite of a group you own has that token';
  end if;
end
$$;
comment on function public.community_revoke_invite(text) is
  'rpc: an owner deletes one of the group''s invites, so its link stops working.';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.end_presence_session() from public, anon, authenticated;
revoke execute on function public.community_get_group_board(uuid), public.community_get_join_requests(uuid),
  public.community_cancel_join_request(uuid), public.community_revoke_invite(text)
  from public, anon;
grant execute on function public.community_get_group_board(uuid), public.community_get_join_requests(uuid),
  public.community_cancel_join_request(uuid), public.community_revoke_invite(text)
  to authenticated, service_role;

-- Membership helpers that answer only about the caller, and unrestricted internals the Data API
-- cannot reach. Policies keep calling public._is_group_member / public._has_group_role.
-- Rules: docs/database.md#membership-helpers (membership is private to a group's members).
--
-- Why: every public function an API role can execute is also an RPC (`/rest/v1/rpc/<name>`). The
-- helpers took any user id, so a signed-in student could ask whether another student belongs to,
-- or owns, a private group that RLS hides from them, and get the true answer.
--
-- Decision: the public helpers keep their names and signatures (every group-content policy calls
-- them with `(select auth.uid())`, and an audit checks that policies use them and never read
-- group_members), but answer about `uid` only when it is the caller. Asked about anyone else they
-- say false, like for a stranger, rather than raise: a policy never asks about anyone else, and
-- false reveals nothing. Two callers may still ask about anyone:
--   - service_role (the admin console and the gateway's service calls), which reads group_members
--     outright anyway;
--   - a session that has not switched to an API role: the database owner running migrations,
--     scheduled jobs or the SQL editor.
-- Both are told apart by the session's `role` setting, which the Data API sets for each request
-- from the verified JWT and which a SECURITY DEFINER function does not change (auth.uid() reads
-- the same trusted request context).
-- Internals that must ask about other users (start alerts check the subscriber, not the student
-- who starts studying) call private.is_group_member / private.has_group_role: the private schema
-- is not served by the Data API and no API role may execute them. Moving the public helpers into
-- private instead would have meant rewriting every policy and leaving old names callable on live
-- projects that received earlier patches.
-- Idempotent: part of community-patch-v6.sql.

-- Helpers ----------------------------------------------------------------------------------------

create or replace function private.is_group_member(p_group_id uuid, p_user_id uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from public.group_members m where m.group_id = p_group_id and m.user_id = p_user_id)
$$;
comment on function private.is_group_member(uuid, uuid) is
  'internal: whether p_user_id is a member of group p_group_id, about anyone; never executable by an API role.';

create or replace function private.has_group_role(p_group_id uuid, p_user_id uuid, p_roles text[]) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1 from public.group_members m
    where m.group_id = p_group_id and m.user_id = p_user_id and m.role = any (p_roles)
  )
$$;
comment on function private.has_group_role(uuid, uuid, text[]) is
  'internal: whether p_user_id holds any of p_roles in group p_group_id, about anyone; never executable by an API role.';

-- The body is written out rather than calling the private helper: these run once per row a
-- policy checks, and a nested definer call would double the cost. The caller test comes first,
-- so a question about someone else never reads group_members.
create or replace function public._is_group_member(gid uuid, uid uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(uid = (select auth.uid()) or current_setting('role') in ('service_role', 'none'), false)
     and exists (select 1 from public.group_members m where m.group_id = gid and m.user_id = uid)
$$;
comment on function public._is_group_member(uuid, uuid) is
  'policy helper: whether uid, who must be the caller, is a member of group gid; false for anyone else (service_role and the owner may ask about anyone). Reads group_members without RLS, so policies never recurse.';

create or replace function public._has_group_role(gid uuid, uid uuid, allowed_roles text[]) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(uid = (select auth.uid()) or current_setting('role') in ('service_role', 'none'), false)
     and exists (
       select 1 from public.group_members m
       where m.group_id = gid and m.user_id = uid and m.role = any (allowed_roles)
     )
$$;
comment on function public._has_group_role(uuid, uuid, text[]) is
  'policy helper: whether uid, who must be the caller, holds any of allowed_roles in group gid; false for anyone else (service_role and the owner may ask about anyone).';

-- Start alerts ask about the subscriber while the student who starts studying is the caller, so
-- they use the unrestricted internals. Otherwise unchanged from the start alerts migration.
create or replace function private.alert_target_visible(p_subscriber uuid, p_actor uuid,
                                                        p_target_type text, p_target_id uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select case p_target_type
    when 'buddy' then p_target_id = p_actor and private.are_buddies(p_subscriber, p_actor)
    when 'group' then private.is_group_member(p_target_id, p_actor)
                      and private.is_group_member(p_target_id, p_subscriber)
    else false end
$$;

create or replace function private.enqueue_start_alerts() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.status <> 'studying' then return new; end if;
  -- A stale studying row counts as offline, so studying again after a lapse alerts again.
  if tg_op = 'UPDATE' and private.effective_presence_status(old.status, old.last_seen) = 'studying' then
    return new;
  end if;
  insert into public.community_notification_outbox (recipient_id, token, payload)
    select distinct on (t.token) a.user_id, t.token,
      jsonb_build_object('type', 'start_alert',
        'actor', jsonb_build_object('id', new.user_id,
          'handle', (select coalesce(handle, profile_data ->> 'community_handle')
                     from public.user_profiles where user_id = new.user_id)),
        'target_type', a.target_type, 'target_id', a.target_id,
        'started_at', coalesce(new.session_started_at, now()))
    from public.community_start_alerts a
    join public.community_device_tokens t on t.user_id = a.user_id
    where a.enabled and a.user_id <> new.user_id
      and ((a.target_type = 'buddy' and a.target_id = new.user_id)
           or (a.target_type = 'group' and private.is_group_member(a.target_id, new.user_id)))
      and private.alert_target_visible(a.user_id, new.user_id, a.target_type, a.target_id)
      and not private.in_quiet_hours(a.quiet_start, a.quiet_end, a.timezone_offset_minutes, now())
    order by t.token, a.target_type desc;
  return new;
end
$$;

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.is_group_member(uuid, uuid), private.has_group_role(uuid, uuid, text[])
  from public, anon, authenticated, service_role;
revoke execute on function public._is_group_member(uuid, uuid), public._has_group_role(uuid, uuid, text[])
  from public, anon;
grant execute on function public._is_group_member(uuid, uuid), public._has_group_role(uuid, uuid, text[])
  to authenticated, service_role;

-- Invites with a use limit: max_uses is optional per invite, so the person creating one can set
-- it, not only service_role. community_create_invite gains p_max_uses (null: unlimited, the old
-- behaviour); callers passing the first three arguments are unaffected. The old
-- three-argument function is dropped first, so the Data API never has two candidates to choose from.
-- Rules: docs/database.md#invites-and-join-requests (use limit and expiry).

drop function if exists public.community_create_invite(text, uuid, integer);

create or replace function public.community_create_invite(
  p_type text, p_target_id uuid, p_days integer default 7, p_max_uses integer default null
) returns text
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
  if p_max_uses is not null and p_max_uses not between 1 and 1000 then
    raise exception 'invalid_max_uses' using errcode = 'P0004', hint = 'an invite admits 1 to 1000 people, or null for no limit';
  end if;
  if p_type = 'group' then
    perform private.require_group_owner(p_target_id);
    insert into public.group_invites (group_id, created_by, expires_at, max_uses)
    values (p_target_id, v_uid, v_expires, p_max_uses) returning token into v_token;
  elsif p_type = 'buddy' then
    if p_target_id is not null and p_target_id <> v_uid then
      raise exception 'invalid_target' using errcode = 'P0004', hint = 'a buddy invite is created for yourself';
    end if;
    insert into public.buddy_invites (created_by, expires_at, max_uses)
    values (v_uid, v_expires, p_max_uses) returning token into v_token;
  else
    raise exception 'invalid_invite_type' using errcode = 'P0004', hint = 'an invite type is group or buddy';
  end if;
  return v_token;
end
$$;
comment on function public.community_create_invite(text, uuid, integer, integer) is
  'rpc: creates a group invite (owners only) or a buddy invite link, optionally limited to p_max_uses redeems; returns the token.';

revoke execute on function public.community_create_invite(text, uuid, integer, integer) from public, anon;
grant execute on function public.community_create_invite(text, uuid, integer, integer) to authenticated, service_role;

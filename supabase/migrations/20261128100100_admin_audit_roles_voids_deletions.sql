-- Every console action that changes the database is recorded by the database itself, once, in the
-- action's own transaction: a role granted or revoked (any insert, update or delete of user_roles,
-- whether through the console's Roles page or SQL), a study session voided or counted again (any
-- change of voided_at), and an account an admin deletes through public.admin_delete_account (the
-- console's Users page), whose delete_account row then names the console's admin like every other
-- row the service role causes. Rules: docs/database.md#moderation-audit-log.
-- Idempotent: part of community-patch-v6.sql.

-- Helpers ----------------------------------------------------------------------------------------

-- Role rows that go with their account (the users row is gone already: a foreign key cascade) are
-- part of that deletion, which has its own delete_account row.
create or replace function private.audit_role_change() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_actor text := coalesce(private.caller_admin_role(), 'service_role');
begin
  if tg_op in ('DELETE', 'UPDATE') and exists (select 1 from public.users u where u.id = old.user_id)
     and (tg_op = 'DELETE' or old.user_id is distinct from new.user_id or old.role is distinct from new.role) then
    perform private.record_audit(v_actor, 'revoke_role', old.user_id, 'user_roles', old.id::text,
      jsonb_build_object('role', old.role));
  end if;
  if tg_op = 'INSERT'
     or (tg_op = 'UPDATE' and (old.user_id is distinct from new.user_id or old.role is distinct from new.role)) then
    perform private.record_audit(v_actor, 'grant_role', new.user_id, 'user_roles', new.id::text,
      jsonb_strip_nulls(jsonb_build_object('role', new.role, 'granted_by', new.granted_by)));
  end if;
  return null;
end
$$;
comment on function private.audit_role_change() is
  'internal: records each role granted (grant_role) or revoked (revoke_role) in admin_audit_log, except rows deleted with their account.';

drop trigger if exists trg_audit_role_change on public.user_roles;
create trigger trg_audit_role_change after insert or update or delete on public.user_roles
  for each row execute function private.audit_role_change();

-- A void, or a session counted again, whoever writes voided_at (void_study_session, or SQL).
create or replace function private.audit_session_void() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.record_audit(coalesce(private.caller_admin_role(), 'service_role'),
    case when new.voided_at is null then 'unvoid_session' else 'void_session' end,
    new.user_id, 'study_sessions', new.id::text,
    jsonb_strip_nulls(jsonb_build_object('study_day', new.study_day, 'minutes', new.minutes,
                                         'reason', new.void_reason)));
  return null;
end
$$;
comment on function private.audit_session_void() is
  'internal: records each change of a study session''s void (void_session, unvoid_session) in admin_audit_log.';

drop trigger if exists trg_audit_session_void on public.study_sessions;
create trigger trg_audit_session_void after update of voided_at on public.study_sessions
  for each row when (old.voided_at is distinct from new.voided_at)
  execute function private.audit_session_void();

-- RPCs -------------------------------------------------------------------------------------------

-- The console deletes an account here rather than through the auth admin API, so the one
-- delete_account row (the deletion trigger's) is written in a request that names the console's
-- admin. The deletion rule is the same whichever way the auth.users row goes.
create or replace function public.admin_delete_account(p_user_id uuid) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
begin
  if current_setting('role', true) is distinct from 'service_role' then
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only the admin console deletes an account this way';
  end if;
  delete from auth.users where id = p_user_id;
  if not found then
    raise exception 'user_not_found' using errcode = 'P0002', hint = 'no account has that id';
  end if;
  return jsonb_build_object('deleted', p_user_id);
end
$$;
comment on function public.admin_delete_account(uuid) is
  'admin: deletes an account by the account deletion rule, recorded as the console''s admin (service role only).';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.audit_role_change(), private.audit_session_void()
  from public, anon, authenticated, service_role;
revoke execute on function public.admin_delete_account(uuid) from public, anon, authenticated;
grant execute on function public.admin_delete_account(uuid) to service_role;

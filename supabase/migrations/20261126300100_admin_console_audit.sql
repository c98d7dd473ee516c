-- The console's own actions in the one audit log, and the console's admin named on every row the
-- service role writes. The console reaches the database as the service role, so a row it causes
-- would otherwise say only "service_role": the console sends the signed-in admin's subject in the
-- request header `x-studyhall-console-admin`, which the Data API passes to the transaction as
-- `request.headers`, and a service-role row keeps it as `detail.console_admin`. Only the service
-- role's rows read it: a student's header is ignored. Actions the database cannot see (a ban or a
-- reset link through the auth API, a deletion's stored files) are appended by the console with
-- admin_audit_console_action. Rules: docs/database.md#moderation-audit-log.
--
-- Idempotent: part of community-patch-v6.sql.

-- The console's admin, as the console named her (a subject such as `user:<id>:<email>` or `secret`).
create or replace function private.console_admin() returns text
language sql
stable
set search_path = ''
as $$
  select case when current_setting('role', true) = 'service_role' then
    left(nullif(btrim((nullif(current_setting('request.headers', true), '')::jsonb) ->> 'x-studyhall-console-admin'), ''), 320)
  end
$$;
comment on function private.console_admin() is
  'internal: the console admin named by a service-role request''s x-studyhall-console-admin header, else null.';

create or replace function private.record_audit(
  p_actor_role text, p_action text, p_target_user_id uuid, p_target_table text, p_target_id text,
  p_detail jsonb default '{}'::jsonb
) returns void
language sql
security definer
set search_path = ''
as $$
  insert into public.admin_audit_log (actor_id, actor_role, action, target_user_id, target_table, target_id, detail)
  values ((select auth.uid()), p_actor_role, p_action, p_target_user_id, p_target_table, p_target_id,
          coalesce(p_detail, '{}'::jsonb)
            || jsonb_strip_nulls(jsonb_build_object('console_admin', private.console_admin())))
$$;
comment on function private.record_audit(text, text, uuid, text, text, jsonb) is
  'internal: appends one row to admin_audit_log as the caller (naming the console''s admin for the service role); only moderating definer functions call it.';

-- An action the console performed outside the database (through the auth or storage API).
create or replace function public.admin_audit_console_action(
  p_action text, p_target_user_id uuid default null, p_detail jsonb default '{}'::jsonb
) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if current_setting('role', true) is distinct from 'service_role' then
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only the admin console records its actions';
  end if;
  if p_action is null or p_action !~ '^console:[a-z_]{1,48}$'
     or (p_detail is not null and jsonb_typeof(p_detail) <> 'object') then
    raise exception 'invalid_audit_entry' using errcode = 'P0099',
      hint = 'an action is console:<name> and the detail a JSON object';
  end if;
  perform private.record_audit('service_role', p_action, p_target_user_id, null, null, coalesce(p_detail, '{}'::jsonb));
end
$$;
comment on function public.admin_audit_console_action(text, uuid, jsonb) is
  'admin: appends an action the console performed through the auth or storage API to admin_audit_log (service role only).';

revoke execute on function private.console_admin() from public, anon, authenticated, service_role;
revoke execute on function public.admin_audit_console_action(text, uuid, jsonb) from public, anon, authenticated;
grant execute on function public.admin_audit_console_action(text, uuid, jsonb) to service_role;

-- One audit log of moderation that nobody can edit: public.admin_audit_log, written only by the
-- definer functions that moderate (deleting another student's chat message, resolving a report,
-- deleting an account), read only by admins.
-- Rules: docs/database.md#moderation-audit-log.
--
-- Why a table and not the console's file (LOG_DIR/admin-audit.log): moderation happens in the
-- database, through RPCs a signed-in admin or a group's owner calls with her own token, often
-- without the console in between. Only the database sees every such action, and it records it in
-- the same transaction as the action, so a row exists exactly when the action happened. The file
-- keeps recording what the console itself does.
--
-- Nobody edits it: no API role (service_role included) holds insert, update, delete or truncate;
-- and a trigger refuses every update and delete, and truncate, whoever asks (the database owner
-- too, short of dropping the trigger), with `audit_log_immutable` P0096. Rows name accounts by id
-- without a foreign key, so deleting an account neither changes nor removes them.
-- Idempotent: part of community-patch-v6.sql.

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.admin_audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null default now(),
  -- Who acted (null: the service role, e.g. the console unlocked with ADMIN_SECRET) and the
  -- standing that allowed it.
  actor_id uuid,
  actor_role text not null check (actor_role in ('admin', 'service_role', 'group_owner', 'group_moderator', 'self')),
  action text not null check (char_length(action) between 1 and 64),
  target_user_id uuid,
  target_table text check (target_table is null or char_length(target_table) <= 64),
  target_id text check (target_id is null or char_length(target_id) <= 64),
  -- Ids, codes and the moderator's note; never a message body.
  detail jsonb not null default '{}'::jsonb check (jsonb_typeof(detail) = 'object')
);
comment on table public.admin_audit_log is
  'Moderation actions, appended by definer RPCs only; no role updates or deletes a row. Admins read it.';

create index if not exists admin_audit_log_at_idx on public.admin_audit_log (at desc);
create index if not exists admin_audit_log_target_user_idx on public.admin_audit_log (target_user_id);

-- Helpers ----------------------------------------------------------------------------------------

-- An admin of the app: an `admin` or `super_admin` row in user_roles (the console's own test is
-- the `admin` row; a super admin is above it). The global `moderator` role is not an admin.
create or replace function private.is_app_admin(p_user_id uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select p_user_id is not null and exists (
    select 1 from public.user_roles r where r.user_id = p_user_id and r.role in ('admin', 'super_admin')
  )
$$;
comment on function private.is_app_admin(uuid) is
  'internal: whether the user holds an admin or super_admin row in user_roles; never executable by an API role.';

-- The read policy's question, about the caller only (an API role may execute it).
create or replace function private.caller_is_app_admin() returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select private.is_app_admin((select auth.uid()))
$$;
comment on function private.caller_is_app_admin() is
  'policy helper: whether the caller is an admin of the app (answers about nobody else).';

-- The caller acts as an admin: a signed-in admin, or the service role (the console and the
-- gateway's service calls). Told apart by the session's role, which the Data API sets from the
-- verified token and a definer function does not change.
create or replace function private.caller_admin_role() returns text
language sql
stable
security definer
set search_path = ''
as $$
  select case
    when current_setting('role', true) = 'service_role' then 'service_role'
    when private.is_app_admin((select auth.uid())) then 'admin'
  end
$$;
comment on function private.caller_admin_role() is
  'internal: ''admin'' or ''service_role'' when the caller may act as an admin, else null.';

create or replace function private.require_app_admin() returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_role text := private.caller_admin_role();
begin
  if v_role is null then
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only an admin of the app may do that';
  end if;
  return v_role;
end
$$;

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
          coalesce(p_detail, '{}'::jsonb))
$$;
comment on function private.record_audit(text, text, uuid, text, text, jsonb) is
  'internal: appends one row to admin_audit_log as the caller; only moderating definer functions call it.';

create or replace function private.refuse_audit_log_change() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception 'audit_log_immutable' using errcode = 'P0096', hint = 'the audit log is append-only';
end
$$;

drop trigger if exists trg_refuse_audit_log_change on public.admin_audit_log;
create trigger trg_refuse_audit_log_change before update or delete on public.admin_audit_log
  for each row execute function private.refuse_audit_log_change();
drop trigger if exists trg_refuse_audit_log_truncate on public.admin_audit_log;
create trigger trg_refuse_audit_log_truncate before truncate on public.admin_audit_log
  for each statement execute function private.refuse_audit_log_change();

-- Policies ---------------------------------------------------------------------------------------

alter table public.admin_audit_log enable row level security;

drop policy if exists "admins read the audit log" on public.admin_audit_log;
create policy "admins read the audit log" on public.admin_audit_log
  for select to authenticated
  using ((select private.caller_is_app_admin()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.admin_audit_log from anon;
revoke insert, update, delete, truncate, references, trigger on public.admin_audit_log
  from authenticated, service_role;
grant select on public.admin_audit_log to authenticated, service_role;

revoke execute on function private.is_app_admin(uuid), private.caller_is_app_admin(), private.caller_admin_role(),
  private.require_app_admin(),
  private.record_audit(text, text, uuid, text, text, jsonb), private.refuse_audit_log_change()
  from public, anon, authenticated, service_role;
-- The read policy runs with the caller's rights.
grant execute on function private.caller_is_app_admin() to authenticated;

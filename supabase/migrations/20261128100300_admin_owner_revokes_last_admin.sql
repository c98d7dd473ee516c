-- Who may revoke an admin row depends on who signed in to the console (the admin it names in
-- x-studyhall-console-admin, private.console_admin(), read for the service role only):
--   the owner (`secret`: unlocked with ADMIN_SECRET, which no revoke can lock out) revokes any
--   admin row, the last one included, so a mistaken grant can always be undone;
--   an admin signed in with her account never revokes her own admin row, the one her console
--   session stands on (own_admin_row P0102): another admin or the owner does;
--   anyone else (an admin's account, or a service-role call that names nobody) never revokes the
--   last admin row (last_admin), as before.
-- The header relaxes a rule only for a caller that holds the service key, which may change
-- user_roles directly anyway: the rule guards against a mistake, not against the service role.
-- Rules: docs/database.md#admin-console.
-- Idempotent: part of community-patch-v6.sql.

-- Definer rights: it reads the console's admin (private.console_admin(), which no API role may
-- execute) and is executable by the service role only.
create or replace function public.admin_revoke_role(p_user_id uuid, p_role text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_admin text := private.console_admin();
  v_remaining integer;
begin
  if current_setting('role', true) is distinct from 'service_role' then
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only the admin console revokes roles';
  end if;
  -- Concurrent revokes queue here, so two of them cannot each remove "not the last" admin.
  lock table public.user_roles in share row exclusive mode;
  if not exists (select 1 from public.user_roles where user_id = p_user_id and role = p_role) then
    raise exception 'role_not_found' using errcode = 'P0002', hint = 'that user does not hold that role';
  end if;
  if p_role = 'admin' and v_admin is distinct from 'secret' then
    if v_admin like 'user:' || p_user_id::text || ':%' then
      raise exception 'own_admin_row' using errcode = 'P0102',
        hint = 'this is the admin row the console session that asks was opened with; another admin or the owner revokes it';
    end if;
    select count(*) into v_remaining from public.user_roles where role = 'admin' and user_id <> p_user_id;
    if v_remaining = 0 then
      raise exception 'last_admin' using errcode = 'P0001',
        hint = 'this is the last admin row; grant admin to someone else first, or revoke it signed in with the admin secret';
    end if;
  end if;
  delete from public.user_roles where user_id = p_user_id and role = p_role;
  return jsonb_build_object('user_id', p_user_id, 'role', p_role, 'revoked', true);
end
$$;
comment on function public.admin_revoke_role(uuid, text) is
  'admin: revokes a role; the last admin row only for the owner (ADMIN_SECRET), never an admin''s own row (service role only)';

revoke execute on function public.admin_revoke_role(uuid, text) from public, anon, authenticated;
grant execute on function public.admin_revoke_role(uuid, text) to service_role;

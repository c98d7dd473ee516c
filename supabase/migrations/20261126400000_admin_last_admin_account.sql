-- The last admin cannot delete her own account. With her account gone no `admin` row would be left,
-- and nobody could unlock the console with a backend login through user_roles; she must grant admin
-- to someone else first (as the last admin row cannot be revoked: admin_revoke_role's last_admin).
-- The refusal has its own code, last_admin_account P0100, so the app can say what to do.
-- Only delete_my_account is refused here: an admin deleting the account through the auth admin API
-- (the console's Users page) is the owner's decision, and the console checks it itself, since
-- only it knows whether ADMIN_SECRET still unlocks the console.
-- Rules: docs/database.md#deleting-an-account.
--
-- Idempotent: part of community-patch-v6.sql.

create or replace function public.delete_my_account(p_confirm text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_expected text;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to delete your account';
  end if;
  select coalesce(p.handle, 'delete') into v_expected from public.user_profiles p where p.user_id = v_uid;
  if lower(btrim(coalesce(p_confirm, ''))) <> lower(coalesce(v_expected, 'delete')) then
    raise exception 'invalid_confirmation' using errcode = 'P0097',
      hint = 'type your handle (or "delete" if you have none) to confirm';
  end if;
  -- Two admins deleting their accounts at once queue here (as concurrent revokes do), so each
  -- cannot see the other as the admin who remains.
  lock table public.user_roles in share row exclusive mode;
  if exists (select 1 from public.user_roles r where r.user_id = v_uid and r.role = 'admin')
     and not exists (select 1 from public.user_roles r where r.role = 'admin' and r.user_id <> v_uid) then
    raise exception 'last_admin_account' using errcode = 'P0100',
      hint = 'you hold the last admin row; grant admin to someone else before deleting your account';
  end if;
  delete from auth.users where id = v_uid;
  return jsonb_build_object('deleted', v_uid);
end
$$;
comment on function public.delete_my_account(text) is
  'rpc: deletes the caller''s account by the account deletion rule, once she typed her handle (or "delete"); never the last admin row holder''s.';

revoke execute on function public.delete_my_account(text) from public, anon;
grant execute on function public.delete_my_account(text) to authenticated;

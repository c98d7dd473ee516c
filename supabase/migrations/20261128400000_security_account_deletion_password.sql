-- Deleting an account needs the password, entered again: delete_my_account refuses a session that
-- has not entered the account's password in the last five minutes (password_required P0103).
-- Rules: docs/database.md#deleting-an-account.
--
-- Her handle alone, which anyone who sees her profile knows, let whoever held one of her access
-- tokens delete the account: a browser left signed in, a token read off a shared computer, a
-- session a recovery link started. The password is checked where GoTrue checks it, by a password
-- grant (its rate limits, the gateway's budget of wrong passwords per account, equal timing for
-- unknown addresses); the database then reads from the access token when its session last proved
-- the password: GoTrue's `amr` claim, signed into the token and carried unchanged by every refresh,
-- so a refreshed token of an old sign-in stays old. A session a recovery, magic or invite link
-- started has no `password` entry. The app asks for the password right before deleting.
--
-- Idempotent: part of community-patch-v6.sql.

-- Helpers ----------------------------------------------------------------------------------------

-- Reads only the caller's own token: invoker rights, no table.
create or replace function private.password_entered_within(p_seconds integer) returns boolean
language sql
stable
set search_path = ''
as $$
  select coalesce(bool_or(
           entry ->> 'method' = 'password'
           and jsonb_typeof(entry -> 'timestamp') = 'number'
           and (entry ->> 'timestamp')::numeric >= extract(epoch from pg_catalog.now()) - p_seconds), false)
  from jsonb_array_elements(
         case when jsonb_typeof(auth.jwt() -> 'amr') = 'array' then auth.jwt() -> 'amr' else '[]'::jsonb end) entry
$$;
comment on function private.password_entered_within(integer) is
  'Whether the caller''s session entered its password within the last p_seconds (the access token''s amr claim).';

-- RPCs -------------------------------------------------------------------------------------------

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
  if not private.password_entered_within(300) then
    raise exception 'password_required' using errcode = 'P0103',
      hint = 'enter your password again (sign in with it) to delete your account';
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
  'rpc: deletes the caller''s account by the account deletion rule, once she typed her handle (or "delete") and entered her password within five minutes; never the last admin row holder''s.';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.password_entered_within(integer) from public, anon, authenticated;
revoke execute on function public.delete_my_account(text) from public, anon;
grant execute on function public.delete_my_account(text) to authenticated;

-- Deleting an account leaves nothing that names her (docs/database.md#deleting-an-account), the
-- gateways' shared state included: the record that her admin console sessions were ended goes with
-- her account. Nothing is lost by it: a console session is refused on every request once its
-- account is gone (the console checks the account's standing each time), so the record could only
-- ever refuse what is refused already. Idempotent: part of community-patch-v6.sql.
-- Rules: docs/database.md#gateway-shared-state.

-- Triggers ---------------------------------------------------------------------------------------

create or replace function private.gateway_forget_deleted_account() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from private.gateway_ended_admin_accounts where user_id = old.id::text;
  return null;
end
$$;
comment on function private.gateway_forget_deleted_account() is
  'internal: an account''s ended admin console sessions are forgotten with the account.';

drop trigger if exists gateway_forget_deleted_account on auth.users;
create trigger gateway_forget_deleted_account after delete on auth.users
  for each row execute function private.gateway_forget_deleted_account();

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.gateway_forget_deleted_account() from public, anon, authenticated, service_role;

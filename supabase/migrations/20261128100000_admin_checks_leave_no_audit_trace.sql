-- The console's checks leave no trace in the audit log: verify's auth smoke test and the browser
-- proof each make a temporary account and delete it minutes later, which is no action anyone took
-- on a person. Rules: docs/database.md#checks-leave-no-trace.
--
-- The database decides which deletions those are, never the caller: a check account is marked
-- when it is made (public.admin_mark_check_account, service role only), and only an account nobody
-- can have used may be marked: made in the last two minutes, never signed in, with an address in
-- the reserved `studyhall.invalid` domain (RFC 2606: no mailbox can exist there). Its deletion
-- within 15 minutes of its creation writes no audit row; everything else the deletion rule does
-- still happens. Every other deletion is recorded as before, and so is a marked account's after 15
-- minutes: a mark cannot hide the deletion of an account someone came to use.
-- Idempotent: part of community-patch-v6.sql.

-- Tables -----------------------------------------------------------------------------------------

create table if not exists private.check_accounts (
  user_id uuid primary key references auth.users (id) on delete cascade,
  purpose text not null check (purpose in ('verify', 'browser-proof')),
  marked_at timestamptz not null default now()
);
comment on table private.check_accounts is
  'The temporary accounts of the console''s checks, marked when made; their prompt deletion is not audited.';

-- Helpers ----------------------------------------------------------------------------------------

-- Whether deleting this account now is the end of a check: marked, and made at most 15 minutes ago.
create or replace function private.is_check_account_deletion(p_user_id uuid, p_created_at timestamptz)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select p_created_at > now() - interval '15 minutes'
     and exists (select 1 from private.check_accounts c where c.user_id = p_user_id)
$$;
comment on function private.is_check_account_deletion(uuid, timestamptz) is
  'internal: whether an account''s deletion ends a console check (marked when made, made at most 15 minutes ago).';

-- The deletion rule of 20261126100300_community_account_deletion.sql, with the audit row left out
-- for a check account.
create or replace function private.on_auth_user_deleted() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_summary jsonb := private.erase_account(old.id);
begin
  if private.is_check_account_deletion(old.id, old.created_at) then
    return old;
  end if;
  perform private.record_audit(
    -- The auth admin API (GoTrue, or localbase as the database owner) is the service acting.
    case when current_setting('role', true) = 'authenticated' and (select auth.uid()) = old.id then 'self'
         else coalesce(private.caller_admin_role(), 'service_role') end,
    'delete_account', old.id, 'users', old.id::text, v_summary);
  return old;
end
$$;

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.admin_mark_check_account(p_user_id uuid, p_purpose text) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if current_setting('role', true) is distinct from 'service_role' then
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only the admin console marks its check accounts';
  end if;
  if p_purpose is null or p_purpose not in ('verify', 'browser-proof') or not exists (
    select 1 from auth.users u
    where u.id = p_user_id
      and u.created_at > now() - interval '2 minutes'
      and u.last_sign_in_at is null
      and lower(u.email) like '%@studyhall.invalid'
  ) then
    raise exception 'not_check_account' using errcode = 'P0101',
      hint = 'a check account was made in the last two minutes, never signed in, and has a studyhall.invalid address';
  end if;
  insert into private.check_accounts (user_id, purpose) values (p_user_id, p_purpose)
  on conflict (user_id) do nothing;
end
$$;
comment on function public.admin_mark_check_account(uuid, text) is
  'admin: marks a temporary account the console just made for a check, so its prompt deletion is not audited (service role only).';

-- Grants -----------------------------------------------------------------------------------------

revoke all on private.check_accounts from public, anon, authenticated, service_role;
revoke execute on function private.is_check_account_deletion(uuid, timestamptz) from public, anon, authenticated, service_role;
revoke execute on function public.admin_mark_check_account(uuid, text) from public, anon, authenticated;
grant execute on function public.admin_mark_check_account(uuid, text) to service_role;

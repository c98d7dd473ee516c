-- Admin console sessions ended before their cookie expired (a logout), and accounts whose every
-- console session was ended (banned, deleted, admin role revoked), kept where every gateway on the
-- database reads them: a cookie logged out on one server is refused by all, at once and after any
-- restart. Idempotent: part of community-patch-v6.sql. Rules: docs/database.md#gateway-shared-state.
--
-- A session is named by the SHA-256 digest of its signed cookie value, never the value itself. Times
-- are the gateways' own seconds, as the cookie's issue time is written by a gateway's clock. Ordinary
-- (logged) tables: a logout must survive a crash of PostgreSQL.

create table if not exists private.gateway_ended_admin_sessions (
  id text primary key,
  expires_at timestamptz not null,
  constraint gateway_ended_admin_sessions_id check (id ~ '^[0-9a-f]{64}$')
);
create index if not exists gateway_ended_admin_sessions_expires_idx
  on private.gateway_ended_admin_sessions (expires_at);

create table if not exists private.gateway_ended_admin_accounts (
  user_id text primary key,
  ended_at timestamptz not null,
  constraint gateway_ended_admin_accounts_user check (char_length(user_id) between 1 and 64)
);
create index if not exists gateway_ended_admin_accounts_ended_idx on private.gateway_ended_admin_accounts (ended_at);

revoke all on private.gateway_ended_admin_sessions, private.gateway_ended_admin_accounts
  from public, anon, authenticated, service_role;

-- Remembers a logged-out session until its cookie would have expired.
create or replace function public.gateway_end_admin_session(p_id text, p_expires_at_s bigint)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_id is null or p_id !~ '^[0-9a-f]{64}$' or p_expires_at_s is null or p_expires_at_s not between 0 and 32503680000 then
    raise exception 'invalid_admin_session' using errcode = 'P0112',
      hint = 'a session is the SHA-256 digest of its cookie in hex, with the second its cookie expires';
  end if;
  insert into private.gateway_ended_admin_sessions (id, expires_at)
    values (p_id, to_timestamp(p_expires_at_s))
  on conflict (id) do update set expires_at = greatest(excluded.expires_at, private.gateway_ended_admin_sessions.expires_at);
end
$$;
comment on function public.gateway_end_admin_session(text, bigint) is
  'service: remembers a logged-out admin console session (the digest of its cookie) until p_expires_at_s.';

-- Ends every console session of an account issued up to p_ended_at_s.
create or replace function public.gateway_end_admin_account(p_user_id text, p_ended_at_s bigint)
returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_user_id is null or char_length(p_user_id) not between 1 and 64
     or p_ended_at_s is null or p_ended_at_s not between 0 and 32503680000 then
    raise exception 'invalid_admin_session' using errcode = 'P0112',
      hint = 'give the account''s id and the second its sessions end';
  end if;
  insert into private.gateway_ended_admin_accounts (user_id, ended_at)
    values (p_user_id, to_timestamp(p_ended_at_s))
  on conflict (user_id) do update set ended_at = greatest(excluded.ended_at, private.gateway_ended_admin_accounts.ended_at);
end
$$;
comment on function public.gateway_end_admin_account(text, bigint) is
  'service: ends every admin console session of an account issued up to p_ended_at_s.';

-- Whether a cookie's session was ended: logged out (and not yet expired at p_now_s), or issued at
-- or before the moment its account's sessions were ended.
create or replace function public.gateway_admin_session_ended(
  p_id text, p_user_id text, p_issued_at_s bigint, p_now_s bigint
) returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if p_id is null or p_id !~ '^[0-9a-f]{64}$' or (p_user_id is not null and char_length(p_user_id) not between 1 and 64)
     or p_issued_at_s is null or p_now_s is null then
    raise exception 'invalid_admin_session' using errcode = 'P0112',
      hint = 'give the cookie''s digest, its account (or null), its issue time and now, in seconds';
  end if;
  return exists (select 1 from private.gateway_ended_admin_sessions s
                 where s.id = p_id and s.expires_at >= to_timestamp(p_now_s))
      or exists (select 1 from private.gateway_ended_admin_accounts a
                 where a.user_id = p_user_id and to_timestamp(p_issued_at_s) <= a.ended_at);
end
$$;
comment on function public.gateway_admin_session_ended(text, text, bigint, bigint) is
  'service: whether an admin console cookie (its digest, account and issue time) was logged out or its account''s sessions ended.';

revoke execute on function public.gateway_end_admin_session(text, bigint),
  public.gateway_end_admin_account(text, bigint),
  public.gateway_admin_session_ended(text, text, bigint, bigint)
  from public, anon, authenticated;
grant execute on function public.gateway_end_admin_session(text, bigint),
  public.gateway_end_admin_account(text, bigint),
  public.gateway_admin_session_ended(text, text, bigint, bigint)
  to service_role;

-- Counters that every gateway on one database shares (a district: several servers behind a load
-- balancer): the per-address rate-limit windows and the per-account budget of wrong passwords.
-- Counted here, one atomic statement per hit, so N servers allow what one server allows.
-- Idempotent: part of community-patch-v6.sql. Rules: docs/database.md#gateway-shared-state.
--
-- The gateway names each counter by a SHA-256 digest (of "<family>:<address>", of an account's
-- e-mail), so neither addresses nor e-mail addresses are stored. Windows are timed by the
-- database's clock, which every server shares. The tables are unlogged: a crash of PostgreSQL
-- empties them (every budget starts afresh once), and nothing else depends on them.

create unlogged table if not exists private.gateway_rate_windows (
  key text primary key,
  hits integer not null,
  window_ends_at timestamptz not null,
  constraint gateway_rate_windows_key check (key ~ '^[0-9a-f]{64}$')
);
-- What pruning scans.
create index if not exists gateway_rate_windows_ends_idx on private.gateway_rate_windows (window_ends_at);

create unlogged table if not exists private.gateway_login_budgets (
  account text primary key,
  -- Bumped whenever a new window opens, so an attempt settles in the window it began in.
  generation integer not null default 1,
  failures integer not null default 0,
  -- Attempts still waiting for the backend's answer; they count until in_flight_until, so a server
  -- killed during an attempt leaves no count behind for longer than that.
  in_flight integer not null default 0,
  in_flight_until timestamptz,
  window_ends_at timestamptz not null,
  constraint gateway_login_budgets_account check (account ~ '^[0-9a-f]{64}$'),
  constraint gateway_login_budgets_counts check (failures >= 0 and in_flight >= 0)
);
create index if not exists gateway_login_budgets_ends_idx on private.gateway_login_budgets (window_ends_at);

revoke all on private.gateway_rate_windows, private.gateway_login_budgets from public, anon, authenticated, service_role;

-- One hit on a fixed window that opens at its first hit (as @fastify/rate-limit's own store counts):
-- answers the hits in the window so far, this one included, and the milliseconds until it ends.
create or replace function public.gateway_hit_rate_window(p_key text, p_window_ms integer)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_hits integer;
  v_ends timestamptz;
begin
  if p_key is null or p_key !~ '^[0-9a-f]{64}$' or p_window_ms is null or p_window_ms not between 1 and 86400000 then
    raise exception 'invalid_rate_window' using errcode = 'P0110',
      hint = 'a key is a SHA-256 digest in hex; a window lasts 1 ms to 1 day';
  end if;
  insert into private.gateway_rate_windows as w (key, hits, window_ends_at)
    values (p_key, 1, clock_timestamp() + make_interval(secs => p_window_ms / 1000.0))
  on conflict (key) do update
    set hits = case when w.window_ends_at <= clock_timestamp() then 1 else w.hits + 1 end,
        window_ends_at = case when w.window_ends_at <= clock_timestamp() then excluded.window_ends_at
                              else w.window_ends_at end
  returning w.hits, w.window_ends_at into v_hits, v_ends;
  return jsonb_build_object(
    'hits', v_hits,
    'ttl_ms', greatest(0, ceil(extract(epoch from v_ends - clock_timestamp()) * 1000))::bigint);
end
$$;
comment on function public.gateway_hit_rate_window(text, integer) is
  'service: counts one hit in the rate-limit window named by p_key (opened by its first hit, p_window_ms long); returns {hits, ttl_ms}.';

-- Starts a password attempt for an account. Refused ({locked, retry_after_ms}) once the failures
-- and the attempts in flight reach p_max in the account's window; otherwise the attempt counts as
-- in flight until it is settled, and {generation} names the window it began in.
create or replace function public.gateway_begin_password_attempt(
  p_account text, p_max integer, p_window_ms integer, p_attempt_ms integer
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_row private.gateway_login_budgets%rowtype;
begin
  if p_account is null or p_account !~ '^[0-9a-f]{64}$' or p_max is null or p_max not between 1 and 1000
     or p_window_ms is null or p_window_ms not between 1000 and 86400000
     or p_attempt_ms is null or p_attempt_ms not between 1000 and 600000 then
    raise exception 'invalid_login_attempt' using errcode = 'P0111',
      hint = 'an account is a SHA-256 digest in hex; at most 1-1000 failures per window of 1 s to 1 day; an attempt lasts 1 s to 10 minutes';
  end if;
  -- The row is locked by this statement until the transaction ends: concurrent attempts queue here.
  insert into private.gateway_login_budgets as b (account, window_ends_at)
    values (p_account, v_now + make_interval(secs => p_window_ms / 1000.0))
  on conflict (account) do update
    set generation = case when b.window_ends_at <= v_now then b.generation + 1 else b.generation end,
        failures = case when b.window_ends_at <= v_now then 0 else b.failures end,
        in_flight = case when b.window_ends_at <= v_now or b.in_flight_until <= v_now then 0 else b.in_flight end,
        window_ends_at = case when b.window_ends_at <= v_now then excluded.window_ends_at else b.window_ends_at end
  returning * into v_row;
  if v_row.failures + v_row.in_flight >= p_max then
    return jsonb_build_object(
      'locked', true,
      'retry_after_ms', greatest(1, ceil(extract(epoch from v_row.window_ends_at - v_now) * 1000))::bigint);
  end if;
  update private.gateway_login_budgets
    set in_flight = in_flight + 1, in_flight_until = v_now + make_interval(secs => p_attempt_ms / 1000.0)
    where account = p_account;
  return jsonb_build_object('locked', false, 'generation', v_row.generation);
end
$$;
comment on function public.gateway_begin_password_attempt(text, integer, integer, integer) is
  'service: starts a password attempt for an account; {locked, retry_after_ms} past its budget of wrong passwords, else {generation} of its window.';

-- Settles an attempt begun in window p_generation: no longer in flight, and a wrong password counts
-- in that window, or in the current one when that window has ended. A right password in a window
-- that holds nothing else leaves no window behind.
create or replace function public.gateway_settle_password_attempt(
  p_account text, p_generation integer, p_wrong_password boolean, p_window_ms integer
) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_row private.gateway_login_budgets%rowtype;
begin
  if p_account is null or p_account !~ '^[0-9a-f]{64}$' or p_generation is null or p_wrong_password is null
     or p_window_ms is null or p_window_ms not between 1000 and 86400000 then
    raise exception 'invalid_login_attempt' using errcode = 'P0111',
      hint = 'give the account digest, the generation the attempt began in, its outcome and the window';
  end if;
  update private.gateway_login_budgets
    set in_flight = greatest(in_flight - 1, 0)
    where account = p_account and generation = p_generation and window_ends_at > v_now
    returning * into v_row;
  if not p_wrong_password then
    delete from private.gateway_login_budgets
      where account = p_account and v_row.account is not null and failures = 0 and in_flight = 0;
    return;
  end if;
  insert into private.gateway_login_budgets as b (account, failures, window_ends_at)
    values (p_account, 1, v_now + make_interval(secs => p_window_ms / 1000.0))
  on conflict (account) do update
    set generation = case when b.window_ends_at <= v_now then b.generation + 1 else b.generation end,
        failures = case when b.window_ends_at <= v_now then 1 else b.failures + 1 end,
        in_flight = case when b.window_ends_at <= v_now then 0 else b.in_flight end,
        window_ends_at = case when b.window_ends_at <= v_now then excluded.window_ends_at else b.window_ends_at end;
end
$$;
comment on function public.gateway_settle_password_attempt(text, integer, boolean, integer) is
  'service: settles a password attempt begun in window p_generation; a wrong password counts a failure in the account''s current window.';

-- Ended windows are deleted by the gateways' housekeeping (gateway_prune_shared_state, in its own
-- migration), so the tables hold only what still counts.

revoke execute on function public.gateway_hit_rate_window(text, integer),
  public.gateway_begin_password_attempt(text, integer, integer, integer),
  public.gateway_settle_password_attempt(text, integer, boolean, integer)
  from public, anon, authenticated;
grant execute on function public.gateway_hit_rate_window(text, integer),
  public.gateway_begin_password_attempt(text, integer, integer, integer),
  public.gateway_settle_password_attempt(text, integer, boolean, integer)
  to service_role;

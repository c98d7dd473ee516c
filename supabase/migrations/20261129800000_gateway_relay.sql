-- The timer relay of a district (docs/deployment.md): focus pages' pairings, each page's latest
-- snapshot and the phone actions on their way to it, where every gateway on the database reaches
-- them, so a phone paired through one server drives a page whose event stream another one holds.
-- Idempotent: part of community-patch-v6.sql. Rules: docs/database.md#gateway-shared-state.
--
-- The open event streams and the phones waiting for a newer snapshot stay in the memory of the
-- server that holds them; servers tell each other to read from here with short events (ids only).
-- A pairing's code and channel token are kept as SHA-256 digests. Unlogged: a crash of PostgreSQL
-- forgets the pairings, as the restart of a server alone does, and the pages pair again. The relay
-- clears up as it goes: each pairing deletes those idle past their time (their actions and stream
-- reports with them), so the housekeeping of the other tables has nothing to do here.

create unlogged table if not exists private.gateway_relay_channels (
  id bigint generated always as identity primary key,
  token_key text not null unique,
  code_key text not null unique,
  -- The address that paired the page: its pairings are counted and give way to each other.
  owner_key text not null,
  -- The addresses (digests of their guessing keys) whose phones used the code, at most 8: they keep
  -- getting in while guessing is paused.
  phone_keys text[] not null default '{}',
  -- The page's latest post without its updatedAt, which is snapshot_at; null before the first.
  snapshot jsonb,
  snapshot_at timestamptz,
  idle_ms integer not null,
  -- The last activity (a post, an event stream, a reload) plus idle_ms.
  expires_at timestamptz not null,
  constraint gateway_relay_channels_keys check (
    token_key ~ '^[0-9a-f]{64}$' and code_key ~ '^[0-9a-f]{64}$' and owner_key ~ '^[0-9a-f]{64}$'),
  constraint gateway_relay_channels_phones check (cardinality(phone_keys) <= 8)
);
create index if not exists gateway_relay_channels_owner_idx on private.gateway_relay_channels (owner_key);
create index if not exists gateway_relay_channels_expires_idx on private.gateway_relay_channels (expires_at);

-- Actions are stored, and the event names one, rather than carried in the event: an event's payload
-- is capped (8000 bytes for NOTIFY) and trusted by nobody, and a server that missed events (its
-- listening connection dropped) reads what it missed from here. A minute old, an action is no
-- longer read, and the channel's next action deletes it.
create unlogged table if not exists private.gateway_relay_actions (
  id bigint generated always as identity primary key,
  channel_id bigint not null references private.gateway_relay_channels (id) on delete cascade,
  action jsonb not null,
  created_at timestamptz not null default clock_timestamp()
);
create index if not exists gateway_relay_actions_channel_idx on private.gateway_relay_actions (channel_id, id);
create index if not exists gateway_relay_actions_created_idx on private.gateway_relay_actions (created_at);

-- How many of a channel's event streams each server holds, reported when one opens or closes and
-- renewed while they stay open: a report lapses at valid_until, so a server that died stops counting.
create unlogged table if not exists private.gateway_relay_streams (
  channel_id bigint not null references private.gateway_relay_channels (id) on delete cascade,
  server_id uuid not null,
  streams integer not null,
  valid_until timestamptz not null,
  primary key (channel_id, server_id),
  constraint gateway_relay_streams_count check (streams > 0)
);
create index if not exists gateway_relay_streams_valid_idx on private.gateway_relay_streams (valid_until);

revoke all on private.gateway_relay_channels, private.gateway_relay_actions, private.gateway_relay_streams
  from public, anon, authenticated, service_role;

-- Helpers ----------------------------------------------------------------------------------------

-- A channel's snapshot as the relay hands it out (its updatedAt in ms), or null before any post.
create or replace function private.gateway_relay_snapshot(p_channel private.gateway_relay_channels)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select p_channel.snapshot
    || jsonb_build_object('updatedAt', floor(extract(epoch from p_channel.snapshot_at) * 1000)::bigint)
$$;
comment on function private.gateway_relay_snapshot(private.gateway_relay_channels) is
  'internal: a relay channel''s snapshot with its updatedAt (ms), or null before the page posted one.';

-- RPCs -------------------------------------------------------------------------------------------

-- Pairs a focus page: {channel} (its id), or why not. An address holding p_max_per_owner pairings,
-- or a database holding p_max_pairings, makes room by forgetting the longest-idle one without an
-- open stream (the address's own, in the first case); when every one has a stream, {refused}.
-- code_taken: a live pairing has this code (or token) already, and the gateway draws another.
create or replace function public.gateway_relay_pair(
  p_token_key text, p_code_key text, p_owner_key text, p_idle_ms integer, p_max_pairings integer, p_max_per_owner integer
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_held integer;
  v_free bigint;
  v_id bigint;
begin
  if p_token_key is null or p_token_key !~ '^[0-9a-f]{64}$' or p_code_key is null or p_code_key !~ '^[0-9a-f]{64}$'
     or p_owner_key is null or p_owner_key !~ '^[0-9a-f]{64}$' or p_idle_ms is null or p_idle_ms not between 1000 and 86400000
     or p_max_pairings is null or p_max_pairings not between 1 and 100000
     or p_max_per_owner is null or p_max_per_owner not between 1 and 1000 then
    raise exception 'invalid_relay_call' using errcode = 'P0114',
      hint = 'a token, code and owner are SHA-256 digests in hex; a pairing idles 1 s to 1 day; 1-100000 pairings, 1-1000 per owner';
  end if;
  -- Pairings are counted and evicted one at a time, whichever server asks.
  perform pg_advisory_xact_lock(hashtextextended('private.gateway_relay_channels', 0));
  delete from private.gateway_relay_channels where expires_at <= v_now;
  select count(*) into v_held from private.gateway_relay_channels where owner_key = p_owner_key;
  if v_held >= p_max_per_owner then
    select c.id into v_free from private.gateway_relay_channels c
      where c.owner_key = p_owner_key
        and not exists (select 1 from private.gateway_relay_streams s where s.channel_id = c.id and s.valid_until > v_now)
      order by c.expires_at limit 1;
    if v_free is null then
      return jsonb_build_object('refused', 'address_full', 'held', v_held);
    end if;
    delete from private.gateway_relay_channels where id = v_free;
  end if;
  if (select count(*) from private.gateway_relay_channels) >= p_max_pairings then
    select c.id into v_free from private.gateway_relay_channels c
      where not exists (select 1 from private.gateway_relay_streams s where s.channel_id = c.id and s.valid_until > v_now)
      order by c.expires_at limit 1;
    if v_free is null then
      return jsonb_build_object('refused', 'server_full');
    end if;
    delete from private.gateway_relay_channels where id = v_free;
  end if;
  insert into private.gateway_relay_channels (token_key, code_key, owner_key, idle_ms, expires_at)
    values (p_token_key, p_code_key, p_owner_key, p_idle_ms, v_now + make_interval(secs => p_idle_ms / 1000.0))
  on conflict do nothing
  returning id into v_id;
  if v_id is null then
    return jsonb_build_object('refused', 'code_taken');
  end if;
  return jsonb_build_object('channel', v_id);
end
$$;
comment on function public.gateway_relay_pair(text, text, text, integer, integer, integer) is
  'service: pairs a focus page (digests of its channel token, code and address); {channel} or {refused: address_full | server_full | code_taken}.';

-- The live channel a page's token names (its id, or null), marked active.
create or replace function public.gateway_relay_page(p_token_key text)
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id bigint;
begin
  if p_token_key is null or p_token_key !~ '^[0-9a-f]{64}$' then
    raise exception 'invalid_relay_call' using errcode = 'P0114', hint = 'a channel token is a SHA-256 digest in hex';
  end if;
  update private.gateway_relay_channels
    set expires_at = clock_timestamp() + make_interval(secs => idle_ms / 1000.0)
    where token_key = p_token_key and expires_at > clock_timestamp()
    returning id into v_id;
  return v_id;
end
$$;
comment on function public.gateway_relay_page(text) is
  'service: the live relay channel of a focus page''s token digest (null when none), marked active.';

-- A phone names a code (its digest; null for text that is not a code) from an address (the digest
-- of its guessing key): {channel, snapshot} or {refused, retry_after_ms?}. Wrong codes are counted
-- in the rate-limit windows of gateway_hit_rate_window, per address and for every address together
-- (docs/api.md#pairing-codes-and-guessing). An address is refused before its code is looked up, and
-- its attempts run one at a time, so its limit is exact; attempts of different addresses run side by
-- side, so the limit for all of them together may be passed by the few that were under way at once.
create or replace function public.gateway_relay_phone(
  p_code_key text, p_address_key text, p_max_failures integer, p_max_failures_all integer, p_window_ms integer
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  -- The window of every address together: a fixed digest, so no gateway key can name it.
  v_all_key constant text := encode(sha256(convert_to('gateway_relay_phone: wrong codes', 'UTF8')), 'hex');
  v_window private.gateway_rate_windows%rowtype;
  v_channel private.gateway_relay_channels%rowtype;
begin
  if (p_code_key is not null and p_code_key !~ '^[0-9a-f]{64}$') or p_address_key is null or p_address_key !~ '^[0-9a-f]{64}$'
     or p_address_key = v_all_key or p_max_failures is null or p_max_failures not between 1 and 10000
     or p_max_failures_all is null or p_max_failures_all not between 1 and 1000000
     or p_window_ms is null or p_window_ms not between 1000 and 86400000 then
    raise exception 'invalid_relay_call' using errcode = 'P0114',
      hint = 'a code and an address are SHA-256 digests in hex; 1-10000 wrong codes per address, 1-1000000 in all, per window of 1 s to 1 day';
  end if;
  perform pg_advisory_xact_lock(hashtextextended(p_address_key, 0));
  select * into v_window from private.gateway_rate_windows where key = p_address_key and window_ends_at > v_now;
  if v_window.hits >= p_max_failures then
    return jsonb_build_object('refused', 'address_locked',
      'retry_after_ms', greatest(1, ceil(extract(epoch from v_window.window_ends_at - v_now) * 1000))::bigint);
  end if;
  select * into v_channel from private.gateway_relay_channels where code_key = p_code_key and expires_at > v_now;
  select * into v_window from private.gateway_rate_windows where key = v_all_key and window_ends_at > v_now;
  if v_window.hits >= p_max_failures_all and not coalesce(p_address_key = any(v_channel.phone_keys), false) then
    return jsonb_build_object('refused', 'server_paused',
      'retry_after_ms', greatest(1, ceil(extract(epoch from v_window.window_ends_at - v_now) * 1000))::bigint);
  end if;
  if v_channel.id is null then
    perform public.gateway_hit_rate_window(p_address_key, p_window_ms);
    perform public.gateway_hit_rate_window(v_all_key, p_window_ms);
    return jsonb_build_object('refused', 'unknown');
  end if;
  if not p_address_key = any(v_channel.phone_keys) and cardinality(v_channel.phone_keys) < 8 then
    update private.gateway_relay_channels set phone_keys = phone_keys || p_address_key where id = v_channel.id;
  end if;
  return jsonb_build_object('channel', v_channel.id, 'snapshot', private.gateway_relay_snapshot(v_channel));
end
$$;
comment on function public.gateway_relay_phone(text, text, integer, integer, integer) is
  'service: the relay channel a phone''s code names, {channel, snapshot}, or {refused: unknown | address_locked | server_paused}; wrong codes are counted.';

-- Stores a page's snapshot (without updatedAt), stamped by the database's clock, each later than the
-- last by at least 1 ms so that a phone tells them apart; answers that updatedAt, or null when the
-- channel is gone.
create or replace function public.gateway_relay_store_snapshot(p_channel bigint, p_snapshot jsonb)
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_channel private.gateway_relay_channels%rowtype;
begin
  if p_channel is null or p_snapshot is null or jsonb_typeof(p_snapshot) <> 'object' or p_snapshot ? 'updatedAt'
     or octet_length(p_snapshot::text) > 16384 then
    raise exception 'invalid_relay_call' using errcode = 'P0114',
      hint = 'a snapshot is a JSON object of at most 16 KiB, without updatedAt';
  end if;
  update private.gateway_relay_channels
    set snapshot = p_snapshot,
        snapshot_at = greatest(clock_timestamp(), snapshot_at + interval '1 millisecond'),
        expires_at = clock_timestamp() + make_interval(secs => idle_ms / 1000.0)
    where id = p_channel and expires_at > clock_timestamp()
    returning * into v_channel;
  return floor(extract(epoch from v_channel.snapshot_at) * 1000)::bigint;
end
$$;
comment on function public.gateway_relay_store_snapshot(bigint, jsonb) is
  'service: stores a relay channel''s snapshot; answers its updatedAt (ms, the database''s clock), null when the channel is gone.';

-- A channel's latest snapshot, or null (no post yet, or the channel is gone).
create or replace function public.gateway_relay_read_snapshot(p_channel bigint)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select private.gateway_relay_snapshot(c) from private.gateway_relay_channels c
    where c.id = p_channel and c.expires_at > clock_timestamp()
$$;
comment on function public.gateway_relay_read_snapshot(bigint) is
  'service: a relay channel''s latest snapshot, null before any post or when the channel is gone.';

-- Stores a phone's action for a channel: {id, at, delivered}, where delivered counts the event
-- streams the servers report open for it; null when the channel is gone.
create or replace function public.gateway_relay_send_action(p_channel bigint, p_action jsonb)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id bigint;
  v_at timestamptz;
begin
  if p_channel is null or p_action is null or jsonb_typeof(p_action) <> 'object' or not p_action ? 'action'
     or octet_length(p_action::text) > 1024 then
    raise exception 'invalid_relay_call' using errcode = 'P0114',
      hint = 'an action is a JSON object with an action key, of at most 1 KiB';
  end if;
  delete from private.gateway_relay_actions where channel_id = p_channel and created_at < clock_timestamp() - interval '1 minute';
  insert into private.gateway_relay_actions (channel_id, action)
    select c.id, p_action from private.gateway_relay_channels c where c.id = p_channel and c.expires_at > clock_timestamp()
  returning id, created_at into v_id, v_at;
  if v_id is null then
    return null;
  end if;
  return jsonb_build_object(
    'id', v_id,
    'at', floor(extract(epoch from v_at) * 1000)::bigint,
    'delivered', (select coalesce(sum(s.streams), 0) from private.gateway_relay_streams s
                  where s.channel_id = p_channel and s.valid_until > clock_timestamp()));
end
$$;
comment on function public.gateway_relay_send_action(bigint, jsonb) is
  'service: stores a phone''s action for a relay channel; {id, at, delivered (open streams reported)}, null when the channel is gone.';

-- A channel's actions after the one numbered p_after, oldest first, from the last minute.
create or replace function public.gateway_relay_read_actions(p_channel bigint, p_after bigint)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(jsonb_agg(a.action || jsonb_build_object('id', a.id, 'at', floor(extract(epoch from a.created_at) * 1000)::bigint)
                            order by a.id), '[]'::jsonb)
    from (select * from private.gateway_relay_actions
          where channel_id = p_channel and id > coalesce(p_after, 0) and created_at >= clock_timestamp() - interval '1 minute'
          order by id limit 100) a
$$;
comment on function public.gateway_relay_read_actions(bigint, bigint) is
  'service: a relay channel''s actions numbered after p_after, from the last minute, oldest first: [{id, action, target?, at}].';

-- A server reports how many event streams it holds per channel (0: none any more), valid for
-- p_valid_ms; the channels count as active, so a page's idle time starts when its last stream closes.
create or replace function public.gateway_relay_report_streams(
  p_server uuid, p_channels bigint[], p_streams integer[], p_valid_ms integer
) returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
begin
  if p_server is null or p_channels is null or p_streams is null or cardinality(p_channels) <> cardinality(p_streams)
     or cardinality(p_channels) > 100000 or array_position(p_streams, null) is not null or 0 > any(p_streams)
     or p_valid_ms is null or p_valid_ms not between 1000 and 3600000 then
    raise exception 'invalid_relay_call' using errcode = 'P0114',
      hint = 'give the server, its channels and as many stream counts (0 or more), valid for 1 s to 1 hour';
  end if;
  -- Reports of servers that stopped renewing them.
  delete from private.gateway_relay_streams where valid_until <= v_now;
  delete from private.gateway_relay_streams s
    using unnest(p_channels, p_streams) as r(channel_id, streams)
    where r.streams = 0 and s.channel_id = r.channel_id and s.server_id = p_server;
  insert into private.gateway_relay_streams as s (channel_id, server_id, streams, valid_until)
    select r.channel_id, p_server, r.streams, v_now + make_interval(secs => p_valid_ms / 1000.0)
      from unnest(p_channels, p_streams) as r(channel_id, streams)
      join private.gateway_relay_channels c on c.id = r.channel_id
      where r.streams > 0
  on conflict (channel_id, server_id) do update set streams = excluded.streams, valid_until = excluded.valid_until;
  update private.gateway_relay_channels
    set expires_at = v_now + make_interval(secs => idle_ms / 1000.0)
    where id = any(p_channels) and expires_at > v_now;
end
$$;
comment on function public.gateway_relay_report_streams(uuid, bigint[], integer[], integer) is
  'service: a server''s count of open event streams per relay channel (0: none), valid for p_valid_ms; marks the channels active.';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.gateway_relay_snapshot(private.gateway_relay_channels)
  from public, anon, authenticated, service_role;
revoke execute on function public.gateway_relay_pair(text, text, text, integer, integer, integer),
  public.gateway_relay_page(text),
  public.gateway_relay_phone(text, text, integer, integer, integer),
  public.gateway_relay_store_snapshot(bigint, jsonb),
  public.gateway_relay_read_snapshot(bigint),
  public.gateway_relay_send_action(bigint, jsonb),
  public.gateway_relay_read_actions(bigint, bigint),
  public.gateway_relay_report_streams(uuid, bigint[], integer[], integer)
  from public, anon, authenticated;
grant execute on function public.gateway_relay_pair(text, text, text, integer, integer, integer),
  public.gateway_relay_page(text),
  public.gateway_relay_phone(text, text, integer, integer, integer),
  public.gateway_relay_store_snapshot(bigint, jsonb),
  public.gateway_relay_read_snapshot(bigint),
  public.gateway_relay_send_action(bigint, jsonb),
  public.gateway_relay_read_actions(bigint, bigint),
  public.gateway_relay_report_streams(uuid, bigint[], integer[], integer)
  to service_role;

-- Start alerts: a subscriber asks to hear when a buddy or a group starts studying. When a user's
-- presence enters studying, a trigger writes one community_notification_outbox row per subscriber
-- token, skipping subscribers inside their quiet window (their own timezone; windows may cross
-- midnight) and subscribers who may no longer see the actor. The gateway delivers the outbox.
-- Idempotent: part of community-patch-v6.sql. Applies after the groups migrations (uses
-- public._is_group_member).
-- Rules: docs/database.md#start-alerts.

create table if not exists public.community_start_alerts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  target_type text not null check (target_type in ('buddy', 'group')),
  target_id uuid not null,
  enabled boolean not null default true,
  quiet_start time,
  quiet_end time,
  -- Minutes east of UTC, like user_settings.timezone_offset_minutes.
  timezone_offset_minutes smallint not null default 0 check (timezone_offset_minutes between -720 and 840),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, target_type, target_id),
  check ((quiet_start is null) = (quiet_end is null))
);
create index if not exists community_start_alerts_target_idx
  on public.community_start_alerts (target_type, target_id) where enabled;

create table if not exists public.community_device_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  token text not null check (char_length(token) between 1 and 4096),
  created_at timestamptz not null default now(),
  unique (user_id, token)
);

create table if not exists public.community_notification_outbox (
  id uuid primary key default gen_random_uuid(),
  recipient_id uuid not null references public.users (id) on delete cascade,
  token text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index if not exists community_notification_outbox_pending_idx
  on public.community_notification_outbox (created_at) where delivered_at is null;

drop trigger if exists trg_touch_community_start_alerts on public.community_start_alerts;
create trigger trg_touch_community_start_alerts before update on public.community_start_alerts
  for each row execute function private.touch_updated_at();

-- Whether p_at falls inside [start, end) in local time; a window with start > end crosses midnight.
create or replace function private.in_quiet_hours(p_start time, p_end time, p_offset_minutes integer,
                                                  p_at timestamptz) returns boolean
language sql
immutable
set search_path = ''
as $$
  select case
    when p_start is null or p_end is null or p_start = p_end then false
    when p_start < p_end then local_time >= p_start and local_time < p_end
    else local_time >= p_start or local_time < p_end
  end
  from (select ((p_at at time zone 'UTC') + make_interval(mins => p_offset_minutes))::time as local_time) t
$$;

-- Whether the subscriber may still see the actor through this alert's target.
create or replace function private.alert_target_visible(p_subscriber uuid, p_actor uuid,
                                                        p_target_type text, p_target_id uuid) returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select case p_target_type
    when 'buddy' then p_target_id = p_actor and private.are_buddies(p_subscriber, p_actor)
    when 'group' then public._is_group_member(p_target_id, p_actor)
                      and public._is_group_member(p_target_id, p_subscriber)
    else false end
$$;

create or replace function private.enqueue_start_alerts() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.status <> 'studying' then return new; end if;
  -- A stale studying row counts as offline, so studying again after a lapse alerts again.
  if tg_op = 'UPDATE' and private.effective_presence_status(old.status, old.last_seen) = 'studying' then
    return new;
  end if;
  insert into public.community_notification_outbox (recipient_id, token, payload)
    select distinct on (t.token) a.user_id, t.token,
      jsonb_build_object('type', 'start_alert',
        'actor', jsonb_build_object('id', new.user_id,
          'handle', (select coalesce(handle, profile_data ->> 'community_handle')
                     from public.user_profiles where user_id = new.user_id)),
        'target_type', a.target_type, 'target_id', a.target_id,
        'started_at', coalesce(new.session_started_at, now()))
    from public.community_start_alerts a
    join public.community_device_tokens t on t.user_id = a.user_id
    where a.enabled and a.user_id <> new.user_id
      and ((a.target_type = 'buddy' and a.target_id = new.user_id)
           or (a.target_type = 'group' and public._is_group_member(a.target_id, new.user_id)))
      and private.alert_target_visible(a.user_id, new.user_id, a.target_type, a.target_id)
      and not private.in_quiet_hours(a.quiet_start, a.quiet_end, a.timezone_offset_minutes, now())
    order by t.token, a.target_type desc;
  return new;
end
$$;

drop trigger if exists trg_enqueue_start_alerts on public.user_presence;
create trigger trg_enqueue_start_alerts after insert or update of status on public.user_presence
  for each row execute function private.enqueue_start_alerts();

create or replace function public.community_set_start_alert(
  p_target_type text,
  p_target_id uuid,
  p_quiet_start time default null,
  p_quiet_end time default null,
  p_timezone_offset_minutes integer default 0,
  p_enabled boolean default true
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_row public.community_start_alerts%rowtype;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  if p_target_type is null or p_target_type not in ('buddy', 'group') then
    raise exception 'invalid_target' using errcode = 'P0060', hint = 'target type is buddy or group';
  end if;
  if (p_quiet_start is null) <> (p_quiet_end is null)
     or p_timezone_offset_minutes is null or p_timezone_offset_minutes not between -720 and 840 then
    raise exception 'invalid_quiet_hours' using errcode = 'P0061',
      hint = 'give both ends of the window (or neither) and an offset between -720 and 840 minutes';
  end if;
  if not (case p_target_type when 'buddy' then private.are_buddies(v_uid, p_target_id)
                             else public._is_group_member(p_target_id, v_uid) end) then
    raise exception 'target_not_found' using errcode = 'P0062',
      hint = 'alerts are for your buddies and your groups';
  end if;
  insert into public.community_start_alerts as a (user_id, target_type, target_id, enabled, quiet_start,
                                                  quiet_end, timezone_offset_minutes)
    values (v_uid, p_target_type, p_target_id, coalesce(p_enabled, true), p_quiet_start, p_quiet_end,
            p_timezone_offset_minutes)
    on conflict (user_id, target_type, target_id) do update
      set enabled = excluded.enabled, quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end,
          timezone_offset_minutes = excluded.timezone_offset_minutes
    returning * into v_row;
  return private.start_alert_json(v_row);
end
$$;
comment on function public.community_set_start_alert(text, uuid, time, time, integer, boolean) is
  'rpc: creates or updates the caller''s start alert for a buddy or a group.';

create or replace function private.start_alert_json(p_row public.community_start_alerts) returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object('targetType', p_row.target_type, 'targetId', p_row.target_id,
    'enabled', p_row.enabled, 'quietStart', p_row.quiet_start, 'quietEnd', p_row.quiet_end,
    'timezoneOffsetMinutes', p_row.timezone_offset_minutes)
$$;

create or replace function public.community_get_start_alert(p_target_type text, p_target_id uuid) returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select private.start_alert_json(a) from public.community_start_alerts a
  where a.user_id = (select auth.uid()) and a.target_type = p_target_type and a.target_id = p_target_id
$$;
comment on function public.community_get_start_alert(text, uuid) is
  'rpc: the caller''s start alert for that target, or null.';

create or replace function public.community_sync_quiet_hours(p_quiet_start time, p_quiet_end time,
                                                             p_timezone_offset_minutes integer default 0)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  if auth.uid() is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  if (p_quiet_start is null) <> (p_quiet_end is null)
     or p_timezone_offset_minutes is null or p_timezone_offset_minutes not between -720 and 840 then
    raise exception 'invalid_quiet_hours' using errcode = 'P0061',
      hint = 'give both ends of the window (or neither) and an offset between -720 and 840 minutes';
  end if;
  update public.community_start_alerts
    set quiet_start = p_quiet_start, quiet_end = p_quiet_end, timezone_offset_minutes = p_timezone_offset_minutes
    where user_id = auth.uid();
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function public.community_sync_quiet_hours(time, time, integer) is
  'rpc: applies one quiet window to all the caller''s start alerts; returns how many changed.';

create or replace function public.community_register_device_token(p_token text) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_id uuid;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  if p_token is null or char_length(btrim(p_token)) not between 1 and 4096 then
    raise exception 'invalid_token' using errcode = 'P0063', hint = 'a push token is 1 to 4096 characters';
  end if;
  insert into public.community_device_tokens (user_id, token) values (v_uid, btrim(p_token))
    on conflict (user_id, token) do update set token = excluded.token
    returning id into v_id;
  -- At most ten per user: the oldest go.
  delete from public.community_device_tokens
    where user_id = v_uid and id not in (
      select id from public.community_device_tokens where user_id = v_uid
      order by created_at desc, id limit 10);
  return v_id;
end
$$;
comment on function public.community_register_device_token(text) is
  'rpc: registers a push token for the caller (idempotent, ten per user, oldest dropped).';

alter table public.community_start_alerts enable row level security;
alter table public.community_device_tokens enable row level security;
alter table public.community_notification_outbox enable row level security;

drop policy if exists "users read their own start alerts" on public.community_start_alerts;
create policy "users read their own start alerts" on public.community_start_alerts
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users read their own device tokens" on public.community_device_tokens;
create policy "users read their own device tokens" on public.community_device_tokens
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users delete their own device tokens" on public.community_device_tokens;
create policy "users delete their own device tokens" on public.community_device_tokens
  for delete to authenticated using (user_id = (select auth.uid()));
-- The outbox has no policy: only the gateway (service role) reads it.

revoke all on public.community_start_alerts, public.community_device_tokens,
  public.community_notification_outbox from anon;
revoke all on public.community_notification_outbox from authenticated;
revoke insert, update, delete, truncate, references, trigger on public.community_start_alerts from authenticated;
revoke insert, update, truncate, references, trigger on public.community_device_tokens from authenticated;
revoke execute on function private.in_quiet_hours(time, time, integer, timestamptz),
  private.alert_target_visible(uuid, uuid, text, uuid), private.enqueue_start_alerts(),
  private.start_alert_json(public.community_start_alerts) from public, anon, authenticated;
revoke execute on function public.community_set_start_alert(text, uuid, time, time, integer, boolean),
  public.community_get_start_alert(text, uuid), public.community_sync_quiet_hours(time, time, integer),
  public.community_register_device_token(text) from public, anon;
grant execute on function public.community_set_start_alert(text, uuid, time, time, integer, boolean),
  public.community_get_start_alert(text, uuid), public.community_sync_quiet_hours(time, time, integer),
  public.community_register_device_token(text) to authenticated;

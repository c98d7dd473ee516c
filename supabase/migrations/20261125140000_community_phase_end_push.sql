-- Phase-end pushes: when a student's focus or break phase ends, a Web Push reaches each of her
-- registered devices, through the same outbox and worker as start alerts. The focus page tells the
-- gateway's timer relay when the running phase ends (completionAtMs); the gateway calls
-- community_schedule_phase_end with the student's own token, so a student can only ever schedule
-- pushes to her own devices, and only one phase end at a time: every call replaces the previous one.
-- Idempotent: part of community-patch-v6.sql. Applies after the push delivery migration.
--
-- A scheduled row is due at the phase's end (next_attempt_at) and its age counts from then
-- (created_at), so the worker's max age gives up a push that could not go out near its phase's end,
-- however long the phase was. Rules: docs/database.md#phase-end-pushes.

-- A phase-end row goes out only while its token is still registered to its recipient; other kinds
-- keep their rules. Replaces the definition of the push delivery migration.
create or replace function private.outbox_row_still_wanted(p_recipient uuid, p_token text, p_payload jsonb)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select case
    when p_payload ->> 'type' = 'phase_end' then
      exists (select 1 from public.community_device_tokens t where t.user_id = p_recipient and t.token = p_token)
    when p_payload ->> 'type' is distinct from 'start_alert' then true
    -- A row not shaped like the trigger's never blocks the queue with a cast error.
    when coalesce(p_payload ->> 'target_id', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      or coalesce(p_payload #>> '{actor,id}', '') !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      then false
    else exists (select 1 from public.community_device_tokens t where t.user_id = p_recipient and t.token = p_token)
      and exists (
        select 1 from public.community_start_alerts a
        where a.user_id = p_recipient and a.enabled
          and a.target_type = p_payload ->> 'target_type'
          and a.target_id = (p_payload ->> 'target_id')::uuid
          and not private.in_quiet_hours(a.quiet_start, a.quiet_end, a.timezone_offset_minutes, now())
          and private.alert_target_visible(p_recipient, (p_payload #>> '{actor,id}')::uuid, a.target_type, a.target_id))
  end
$$;
revoke execute on function private.outbox_row_still_wanted(uuid, text, jsonb) from public, anon, authenticated, service_role;

-- What the scheduler looks up: the caller's pending phase-end rows.
create index if not exists community_notification_outbox_phase_end_idx
  on public.community_notification_outbox (recipient_id)
  where payload ->> 'type' = 'phase_end' and delivered_at is null and failed_at is null;

-- Schedules the push for the end of the caller's running phase, replacing any earlier one still
-- ahead; a null
-- p_ends_at only cancels (paused, stopped, or the phase changed). Returns how many rows are queued:
-- one per registered device, none without one.
create or replace function public.community_schedule_phase_end(p_phase text, p_ends_at timestamptz)
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_count integer;
begin
  if v_user is null then
    raise exception 'not_authenticated' using errcode = 'P0001';
  end if;
  if p_ends_at is not null and (p_phase is null or p_phase not in ('focus', 'break')
       or p_ends_at < now() - interval '1 minute' or p_ends_at > now() + interval '1 day') then
    raise exception 'invalid_phase_end' using errcode = 'P0073',
      hint = 'a phase is focus or break and ends between a minute ago and a day from now';
  end if;
  -- A null end (paused, stopped) cancels every pending push. A new end replaces those still ahead,
  -- but not one due now: the page posts the next phase the moment the last one ends, and that post
  -- must not take back the push announcing the end (clocks may differ by a few seconds).
  delete from public.community_notification_outbox o
    where o.recipient_id = v_user and o.payload ->> 'type' = 'phase_end'
      and o.delivered_at is null and o.failed_at is null
      and (p_ends_at is null or o.next_attempt_at > now() + interval '5 seconds');
  if p_ends_at is null then return 0; end if;
  insert into public.community_notification_outbox (recipient_id, token, payload, created_at, next_attempt_at)
    select v_user, t.token,
      jsonb_build_object('type', 'phase_end', 'phase', p_phase,
                         'ends_at', to_char(p_ends_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
      p_ends_at, p_ends_at
    from public.community_device_tokens t
    where t.user_id = v_user;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function public.community_schedule_phase_end(text, timestamptz) is
  'rpc: queues one push per own device of the caller for when the running focus or break phase ends, replacing any earlier one; null p_ends_at cancels.';
revoke execute on function public.community_schedule_phase_end(text, timestamptz) from public, anon;
grant execute on function public.community_schedule_phase_end(text, timestamptz) to authenticated, service_role;

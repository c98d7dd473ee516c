-- Push delivery: the outbox columns and service-role RPCs a gateway uses to claim start alerts in
-- batches, mark them sent or failed (with a retry time), release them and drop dead push tokens;
-- and the subject / stealth rules applied to each start alert as it is queued.
-- Idempotent: part of community-patch-v6.sql. Applies after the start alerts migration.
--
-- Delivery model: a claim leases rows to one caller. The lease is a visibility timeout: a claimed
-- row's next_attempt_at moves to the end of the lease, so rows a crashed gateway held come back by
-- themselves once it passes. `for update skip locked` lets concurrent claims (two gateways on one
-- database) take disjoint rows without waiting for each other. Each claim counts an attempt; a row
-- claimed max_attempts times without success, or older than max_age, is given up instead of sent.
-- Every settling call names the claim it answers, so a gateway whose lease ran out and whose rows
-- another gateway re-claimed cannot settle them a second time.

alter table public.community_notification_outbox
  add column if not exists attempts integer not null default 0,
  add column if not exists next_attempt_at timestamptz not null default now(),
  add column if not exists claim_id uuid,
  add column if not exists failed_at timestamptz,
  add column if not exists last_error text;

do $$
begin
  if not exists (select 1 from pg_constraint
                 where conname = 'community_notification_outbox_last_error_length'
                   and conrelid = 'public.community_notification_outbox'::regclass) then
    alter table public.community_notification_outbox
      add constraint community_notification_outbox_last_error_length
      check (last_error is null or char_length(last_error) <= 500);
  end if;
end
$$;

-- What a claim scans: rows neither sent nor given up, by due time. Replaces the index on created_at,
-- which no reader uses any more.
create index if not exists community_notification_outbox_due_idx
  on public.community_notification_outbox (next_attempt_at)
  where delivered_at is null and failed_at is null;
drop index if exists public.community_notification_outbox_pending_idx;
-- What pruning scans: settled rows by age.
create index if not exists community_notification_outbox_settled_idx
  on public.community_notification_outbox (created_at)
  where delivered_at is not null or failed_at is not null;

-- Queueing --------------------------------------------------------------------------------------

-- Runs for every outbox row as it is written: a start alert carries the actor's current subject
-- only when the actor shares it, and a student in stealth mode (who appears offline to everyone)
-- sets off no start alert at all. Kept apart from the trigger that chooses recipients, so either
-- can change without the other.
create or replace function private.complete_start_alert() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_actor uuid;
  v_privacy jsonb;
  v_subject text;
begin
  if new.payload ->> 'type' is distinct from 'start_alert' then return new; end if;
  v_actor := (new.payload #>> '{actor,id}')::uuid;
  select e.privacy into v_privacy from public.community_enrollments e where e.user_id = v_actor;
  if coalesce((v_privacy ->> 'stealthMode')::boolean, false) then return null; end if;
  if coalesce((v_privacy ->> 'shareCurrentSubject')::boolean, false) then
    select p.subject_name into v_subject from public.user_presence p where p.user_id = v_actor;
  end if;
  new.payload := new.payload || jsonb_build_object('subject', v_subject);
  return new;
end
$$;

drop trigger if exists trg_complete_start_alert on public.community_notification_outbox;
create trigger trg_complete_start_alert before insert on public.community_notification_outbox
  for each row execute function private.complete_start_alert();

-- Whether a queued start alert should still go out now: the token is still registered, the alert
-- still enabled, the recipient outside their quiet hours at this moment (a retry may land in
-- them) and still allowed to see the actor through the target. Other kinds of rows always go.
create or replace function private.outbox_row_still_wanted(p_recipient uuid, p_token text, p_payload jsonb)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select case
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

-- RPCs (service role only) ----------------------------------------------------------------------

create or replace function public.community_claim_push_batch(
  p_limit integer default 50,
  p_lease_seconds integer default 120,
  p_max_attempts integer default 8,
  p_max_age_seconds integer default 3600
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_claim uuid := gen_random_uuid();
  v_result jsonb;
begin
  if p_limit is null or p_limit not between 1 and 1000
     or p_lease_seconds is null or p_lease_seconds not between 5 and 3600
     or p_max_attempts is null or p_max_attempts not between 1 and 100
     or p_max_age_seconds is null or p_max_age_seconds not between 60 and 604800 then
    raise exception 'invalid_claim' using errcode = 'P0070',
      hint = 'limit 1-1000 rows, lease 5-3600 s, max attempts 1-100, max age 60-604800 s';
  end if;
  -- Each due row gets its fate in one statement: sent by this caller, or given up with a reason.
  with due as (
    select o.id,
      case
        when o.created_at < now() - make_interval(secs => p_max_age_seconds) then 'expired'
        when o.attempts >= p_max_attempts then 'attempts_exhausted'
        when not private.outbox_row_still_wanted(o.recipient_id, o.token, o.payload) then 'suppressed'
      end as given_up
    from public.community_notification_outbox o
    where o.delivered_at is null and o.failed_at is null and o.next_attempt_at <= now()
    order by o.next_attempt_at, o.created_at
    limit p_limit
    for update skip locked
  ),
  settled as (
    update public.community_notification_outbox o
      set claim_id = case when d.given_up is null then v_claim end,
          attempts = o.attempts + case when d.given_up is null then 1 else 0 end,
          next_attempt_at = case when d.given_up is null then now() + make_interval(secs => p_lease_seconds)
                                 else o.next_attempt_at end,
          failed_at = case when d.given_up is null then null else now() end,
          last_error = coalesce(d.given_up, o.last_error)
      from due d
      where o.id = d.id
      returning o.id, o.recipient_id, o.token, o.payload, o.attempts, o.created_at, d.given_up
  )
  select jsonb_build_object(
      'claim_id', v_claim,
      'lease_until', now() + make_interval(secs => p_lease_seconds),
      'rows', coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'recipient_id', s.recipient_id, 'token', s.token,
                                                   'payload', s.payload, 'attempts', s.attempts)
                                 order by s.created_at) filter (where s.given_up is null), '[]'::jsonb),
      'given_up', count(*) filter (where s.given_up is not null))
    into v_result
    from settled s;
  return v_result;
end
$$;
comment on function public.community_claim_push_batch(integer, integer, integer, integer) is
  'service: leases up to p_limit due outbox rows to the caller for p_lease_seconds (skip locked), counting an attempt each; gives up rows too old, out of attempts or no longer wanted.';

create or replace function public.community_mark_push_sent(p_claim_id uuid, p_ids uuid[]) returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  if p_claim_id is null or p_ids is null then
    raise exception 'invalid_claim' using errcode = 'P0070', hint = 'give the claim id and the row ids';
  end if;
  update public.community_notification_outbox
    set delivered_at = now(), claim_id = null, last_error = null
    where claim_id = p_claim_id and id = any (p_ids) and delivered_at is null and failed_at is null;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function public.community_mark_push_sent(uuid, uuid[]) is
  'service: marks rows of the claim delivered; returns how many (rows whose claim was lost are not touched).';

-- p_retry_after_seconds: when to try again, or null to give up now.
create or replace function public.community_mark_push_failed(p_claim_id uuid, p_id uuid, p_error text,
                                                              p_retry_after_seconds integer default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.community_notification_outbox%rowtype;
begin
  if p_claim_id is null or p_id is null or p_error is null or btrim(p_error) = '' then
    raise exception 'invalid_claim' using errcode = 'P0070', hint = 'give the claim id, the row id and the error';
  end if;
  if p_retry_after_seconds is not null and p_retry_after_seconds not between 0 and 86400 then
    raise exception 'invalid_retry' using errcode = 'P0071', hint = 'retry after 0 to 86400 seconds, or null to give up';
  end if;
  update public.community_notification_outbox
    set claim_id = null,
        last_error = left(p_error, 500),
        next_attempt_at = case when p_retry_after_seconds is null then next_attempt_at
                               else now() + make_interval(secs => p_retry_after_seconds) end,
        failed_at = case when p_retry_after_seconds is null then now() end
    where id = p_id and claim_id = p_claim_id and delivered_at is null and failed_at is null
    returning * into v_row;
  if v_row.id is null then
    return jsonb_build_object('outcome', 'not_claimed');
  end if;
  return jsonb_build_object('outcome', case when v_row.failed_at is null then 'retry' else 'failed' end,
                            'next_attempt_at', case when v_row.failed_at is null then v_row.next_attempt_at end);
end
$$;
comment on function public.community_mark_push_failed(uuid, uuid, text, integer) is
  'service: records a failed send of a claimed row and schedules the next attempt, or gives the row up when no retry time is given.';

-- The push service said the subscription is gone (404 / 410): the token is removed, so no alert is
-- queued for it again, and the row is given up. Other queued rows for the token are given up by
-- their next claim (the token is no longer registered).
create or replace function public.community_remove_push_token(p_claim_id uuid, p_id uuid, p_error text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.community_notification_outbox%rowtype;
begin
  if p_claim_id is null or p_id is null or p_error is null or btrim(p_error) = '' then
    raise exception 'invalid_claim' using errcode = 'P0070', hint = 'give the claim id, the row id and the error';
  end if;
  update public.community_notification_outbox
    set claim_id = null, failed_at = now(), last_error = left(p_error, 500)
    where id = p_id and claim_id = p_claim_id and delivered_at is null and failed_at is null
    returning * into v_row;
  if v_row.id is null then return false; end if;
  delete from public.community_device_tokens where user_id = v_row.recipient_id and token = v_row.token;
  return true;
end
$$;
comment on function public.community_remove_push_token(uuid, uuid, text) is
  'service: gives up a claimed row whose push subscription is gone and removes that device token; false when the claim was lost.';

-- A gateway stopping before it sent some claimed rows hands them back at once, not counting the
-- attempt, rather than leaving them invisible until the lease ends.
create or replace function public.community_release_push_claim(p_claim_id uuid, p_ids uuid[]) returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  if p_claim_id is null or p_ids is null then
    raise exception 'invalid_claim' using errcode = 'P0070', hint = 'give the claim id and the row ids';
  end if;
  update public.community_notification_outbox
    set claim_id = null, next_attempt_at = now(), attempts = greatest(attempts - 1, 0)
    where claim_id = p_claim_id and id = any (p_ids) and delivered_at is null and failed_at is null;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function public.community_release_push_claim(uuid, uuid[]) is
  'service: hands claimed, unsent rows back to the queue now, without counting the attempt.';

-- Settled rows are kept a while to look into delivery problems, then deleted.
create or replace function public.community_prune_push_outbox(p_keep_seconds integer default 604800) returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_count integer;
begin
  if p_keep_seconds is null or p_keep_seconds < 3600 then
    raise exception 'invalid_keep' using errcode = 'P0072', hint = 'keep settled rows at least 3600 seconds';
  end if;
  delete from public.community_notification_outbox
    where (delivered_at is not null or failed_at is not null)
      and created_at < now() - make_interval(secs => p_keep_seconds);
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function public.community_prune_push_outbox(integer) is
  'service: deletes outbox rows sent or given up longer ago than p_keep_seconds; returns how many.';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.complete_start_alert(), private.outbox_row_still_wanted(uuid, text, jsonb)
  from public, anon, authenticated, service_role;
revoke execute on function public.community_claim_push_batch(integer, integer, integer, integer),
  public.community_mark_push_sent(uuid, uuid[]), public.community_mark_push_failed(uuid, uuid, text, integer),
  public.community_remove_push_token(uuid, uuid, text), public.community_release_push_claim(uuid, uuid[]),
  public.community_prune_push_outbox(integer)
  from public, anon, authenticated;
grant execute on function public.community_claim_push_batch(integer, integer, integer, integer),
  public.community_mark_push_sent(uuid, uuid[]), public.community_mark_push_failed(uuid, uuid, text, integer),
  public.community_remove_push_token(uuid, uuid, text), public.community_release_push_claim(uuid, uuid[]),
  public.community_prune_push_outbox(integer)
  to service_role;

-- An admin voids a study session that should not count (a forgotten timer, a test, a cheat the
-- rules could not see). A void is kept, never a delete: the row stays with who voided it, when and
-- why, and its student sees that on her own rows. A voided session counts nowhere: her daily row
-- and summary (totals, streaks, last study day) are recomputed from her sessions that are not
-- voided, in the same transaction, so every leaderboard drops it at once. It no longer blocks an
-- honest re-record of the same time span (the overlap rule skips it).
-- Rules: docs/database.md#voided-sessions. Idempotent: part of community-patch-v6.sql.

alter table public.study_sessions add column if not exists voided_at timestamptz;
-- An admin account's user id, or for the service role the console's signed-in subject.
alter table public.study_sessions add column if not exists voided_by text;
alter table public.study_sessions add column if not exists void_reason text;
alter table public.study_sessions drop constraint if exists study_sessions_void_check;
alter table public.study_sessions add constraint study_sessions_void_check check (
  (voided_at is null and voided_by is null and void_reason is null)
  or (voided_at is not null and voided_by is not null and void_reason is not null
      and char_length(voided_by) between 1 and 320 and char_length(void_reason) between 1 and 500));

-- Recomputes a student's daily row for one study day and her summary from her sessions that are not
-- voided, the definition the running totals of record_study_session keep incrementally. A day left
-- without sessions loses its row, as if it had never been studied. The streaks are the runs of
-- consecutive study days: current is the run that ends on the last study day, longest the longest.
create or replace function private.recompute_study_stats(p_user_id uuid, p_day date) returns void
language plpgsql
security definer
set search_path = ''
as $$
begin
  with day as (
    select count(*)::int as sessions, coalesce(sum(minutes), 0)::int as minutes,
           coalesce(sum(correct), 0)::int as correct, coalesce(sum(incorrect), 0)::int as incorrect,
           coalesce(sum(skipped), 0)::int as skipped
    from public.study_sessions
    where user_id = p_user_id and study_day = p_day and voided_at is null
  )
  update public.daily_user_stats d
    set minutes = day.minutes, sessions = day.sessions, correct = day.correct, incorrect = day.incorrect,
        skipped = day.skipped, updated_at = now()
    from day
    where d.user_id = p_user_id and d.study_day = p_day and day.sessions > 0;
  delete from public.daily_user_stats d
    where d.user_id = p_user_id and d.study_day = p_day
      and not exists (select 1 from public.study_sessions s
                      where s.user_id = p_user_id and s.study_day = p_day and s.voided_at is null);

  with counted as (
    select * from public.study_sessions where user_id = p_user_id and voided_at is null
  ),
  totals as (
    select count(*)::int as sessions, coalesce(sum(minutes), 0)::int as minutes,
           coalesce(sum(correct), 0)::int as correct, coalesce(sum(incorrect), 0)::int as incorrect,
           coalesce(sum(skipped), 0)::int as skipped, max(study_day) as last_day
    from counted
  ),
  -- Consecutive days share day - row number (gaps and islands).
  runs as (
    select max(study_day) as run_end, count(*)::int as days
    from (select study_day, study_day - (row_number() over (order by study_day))::int as island
          from (select distinct study_day from counted) distinct_days) numbered
    group by island
  )
  update public.user_stats_summary s
    set total_minutes = t.minutes, total_sessions = t.sessions, total_correct = t.correct,
        total_incorrect = t.incorrect, total_skipped = t.skipped,
        current_streak_days = coalesce((select r.days from runs r where r.run_end = t.last_day), 0),
        longest_streak_days = coalesce((select max(r.days) from runs r), 0),
        last_study_day = t.last_day,
        updated_at = now()
    from totals t
    where s.user_id = p_user_id;
end
$$;

-- Any change of voided_at, by any writer (void_study_session, or the service role's own SQL), is
-- followed at once by the recompute, so the statistics never disagree with the sessions.
create or replace function private.recompute_study_stats_after_void() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.recompute_study_stats(new.user_id, new.study_day);
  return null;
end
$$;

drop trigger if exists trg_recompute_study_stats_after_void on public.study_sessions;
create trigger trg_recompute_study_stats_after_void
  after update of voided_at on public.study_sessions
  for each row when (old.voided_at is distinct from new.voided_at)
  execute function private.recompute_study_stats_after_void();

-- Admins: an account with an admin (or super admin) row in user_roles, the rule the console's
-- backend login uses; the console itself calls as the service role.
create or replace function public.void_study_session(p_session_id uuid, p_reason text, p_voided_by text default null)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_by text;
  v_reason text := btrim(p_reason);
  v_session public.study_sessions%rowtype;
begin
  -- The role the request runs as (set by the API for its key), not the claims: a caller who can
  -- set request.jwt.claims still cannot become service_role.
  if current_setting('role', true) = 'service_role' then
    -- The console names the admin who signed in to it; a bare service call is still someone.
    v_by := coalesce(nullif(btrim(p_voided_by), ''), 'service_role');
  elsif v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  elsif exists (select 1 from public.user_roles where user_id = v_uid and role in ('admin', 'super_admin')) then
    -- An admin account is recorded as itself, whatever it passes as p_voided_by.
    v_by := v_uid::text;
  else
    raise exception 'not_admin' using errcode = 'P0092', hint = 'only an admin voids a study session';
  end if;
  if v_reason is null or char_length(v_reason) not between 1 and 500 then
    raise exception 'invalid_void_reason' using errcode = 'P0057',
      hint = 'say why the session is voided, in 1 to 500 characters';
  end if;
  if char_length(v_by) > 320 then
    raise exception 'invalid_void_reason' using errcode = 'P0057', hint = 'the voiding admin''s name is too long';
  end if;

  select * into v_session from public.study_sessions where id = p_session_id;
  if not found then
    raise exception 'session_not_found' using errcode = 'P0058', hint = 'no study session has that id';
  end if;
  -- The student's sessions and statistics change under the lock her own writes take
  -- (record_study_session and the plausibility trigger), so a session recorded meanwhile is
  -- counted by exactly one of the two.
  perform 1 from public.users where id = v_session.user_id for no key update;
  select * into v_session from public.study_sessions where id = p_session_id for update;
  if v_session.voided_at is not null then
    raise exception 'already_voided' using errcode = 'P0059',
      hint = 'this session was already voided; the first void stands';
  end if;

  -- trg_recompute_study_stats_after_void recomputes her statistics in this transaction.
  update public.study_sessions
    set voided_at = now(), voided_by = v_by, void_reason = v_reason
    where id = p_session_id;
  return jsonb_build_object('session_id', p_session_id, 'user_id', v_session.user_id,
                            'study_day', v_session.study_day, 'minutes', v_session.minutes,
                            'voided_at', now(), 'voided_by', v_by, 'void_reason', v_reason);
end
$$;
comment on function public.void_study_session(uuid, text, text) is
  'rpc: admins only: voids a study session (kept, never deleted) and recomputes its student''s statistics.';

-- The overlap rule, as in 20261125130000_security_study_session_rules.sql, skipping voided sessions:
-- a session an admin voided must not stand in the way of the student recording what she did then.
create or replace function private.enforce_study_session_rules() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  -- A device's clock may run a little ahead of the database's; a session may end that far ahead.
  c_clock_skew constant interval := interval '2 minutes';
  -- The app rounds focused time to the nearest minute and record_study_session ends a session at
  -- start + minutes, so a session can end up to half a minute after it truly did; the next one,
  -- started right away, may overlap it by that much.
  c_rounding_overlap constant interval := interval '30 seconds';
  -- One answer every 6 seconds, all the session long: correct, incorrect and skipped together.
  c_answers_per_minute constant integer := 10;
begin
  if new.ended_at > now() + c_clock_skew then
    raise exception 'session_in_future' using errcode = 'P0052',
      hint = 'this session ends in the future: a session is recorded after it ends; check the date and time of your device';
  end if;
  -- Whole minutes, rounded down: a minute counts once it has fully passed.
  if new.minutes * 60 > extract(epoch from new.ended_at - new.started_at) then
    raise exception 'minutes_exceed_duration' using errcode = 'P0053',
      hint = 'a session counts at most the minutes between its start and its end';
  end if;
  if new.correct::bigint + new.incorrect + new.skipped > new.minutes * c_answers_per_minute then
    raise exception 'too_many_answers' using errcode = 'P0055',
      hint = 'a session holds at most 10 answers per minute of study';
  end if;
  -- Two writers of one student's sessions take turns here, so neither misses the other's row.
  -- The student's users row is the lock (every session references it); no key update does not
  -- block the key-share locks other tables' foreign keys take on it.
  perform 1 from public.users where id = new.user_id for no key update;
  -- Ordered by the index with a limit, so the cached generic plan walks study_sessions_user_ended_idx
  -- from the new start on; as a bare exists it scanned the table when one student owns most rows.
  perform 1 from public.study_sessions s
    where s.user_id = new.user_id and s.id <> new.id and s.voided_at is null
      and s.ended_at > new.started_at and s.started_at < new.ended_at
      and least(s.ended_at, new.ended_at) - greatest(s.started_at, new.started_at) > c_rounding_overlap
    order by s.ended_at
    limit 1;
  if found then
    raise exception 'session_overlaps' using errcode = 'P0054',
      hint = 'this session overlaps another session you already recorded';
  end if;
  return new;
end
$$;

revoke execute on function private.recompute_study_stats(uuid, date) from public, anon, authenticated;
revoke execute on function private.recompute_study_stats_after_void() from public, anon, authenticated;
revoke execute on function private.enforce_study_session_rules() from public, anon, authenticated;
revoke execute on function public.void_study_session(uuid, text, text) from public, anon;
grant execute on function public.void_study_session(uuid, text, text) to authenticated, service_role;

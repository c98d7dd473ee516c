-- The overlap rule of 20261125130000_security_study_session_rules.sql in one index probe, however
-- deep in a student's history a session is settled, and record_study_session's usual path without
-- the statements it did not need. The rules themselves are unchanged, with one gap closed: a session
-- a writer un-voids with its own SQL comes back into the count only if it overlaps nothing.
-- Rules: docs/database.md#plausible-sessions. Idempotent: part of community-patch-v6.sql.

-- Why one probe is enough --------------------------------------------------------------------------
--
-- The rule: a session N is refused when a counted session S of the same student (another row, not
-- voided) overlaps it by more than r = 30 seconds: ov(S, N) = least(S.end, N.end) -
-- greatest(S.start, N.start) > r. (Touching, S.end = N.start, is ov = 0; an overlap of exactly r is
-- allowed.) Call a session long when it lasts more than r. Only long sessions can break the rule: ov
-- is at most either session's length, so a session of r or less (zero-length included) overlaps
-- nothing by more than r, whatever its place.
--
-- The invariant: every counted long session of a student overlaps every other by at most r. Every
-- write that brings a session into the count meets the rule (an insert, an update of its times or
-- owner, and since this migration an un-void), and voiding or deleting one only takes it out, so
-- the invariant holds for every row written since the rules migration (see the limits below).
--
-- Two facts follow for counted long sessions A and B of one student:
--   (1) their starts differ: if A.start = B.start, ov(A, B) is the shorter one's length, > r;
--   (2) A.start < B.start implies A.end < B.end: otherwise A holds B whole and ov(A, B) is B's
--       length, > r. Sorted by start, they are sorted by end.
--
-- The probe: P is the counted long session (other than N's own row) with the greatest start before
-- N.end - r. Claim: N breaks the rule iff P exists and ov(P, N) > r.
--   - Any S with ov(S, N) > r is long and starts before N.end - r, so it is one of the sessions P
--     is chosen from; without P, nothing overlaps N by more than r.
--   - If P.start >= N.start: ov(P, N) = least(P.end - P.start, N.end - P.start); the first is
--     more than r (P is long), the second too (P starts before N.end - r): P itself breaks the rule.
--   - If P.start < N.start: every other candidate S starts before P (1, and P's start is the
--     greatest) so it ends before P (2), and starts before N too, so ov(S, N) = least(S.end, N.end)
--     - N.start <= least(P.end, N.end) - N.start = ov(P, N). P overlaps N the most.
--   A short N needs no special case: ov(P, N) is at most its length, never more than r.
--
-- The partial index below holds exactly the sessions P is chosen from (its predicate is repeated
-- word for word in the probe, so the planner uses it), sorted by start: the probe reads one entry.
--
-- Limits, where the invariant may not hold and a session overlapping an uncounted pair may pass:
-- rows stored before 20261125130000 (they were left as they were), and writes that skip triggers
-- (session_replication_role = replica, a disabled trigger), which skip every rule anyway.

create index if not exists study_sessions_user_counted_start_idx on public.study_sessions (user_id, started_at desc)
  where voided_at is null and ended_at - started_at > interval '30 seconds';
-- It served only the overlap check, which reads the index above now.
drop index if exists public.study_sessions_user_ended_idx;

-- Called with the argument 'overlap' (an un-void), only the overlap rule is checked: a row's other
-- columns did not change, and a row stored before the rules keeps its other flaws as it always has.
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
  -- started right away, may overlap it by that much. The index predicate and the probe below
  -- spell it as a literal, which the planner must see to use the partial index.
  c_rounding_overlap constant interval := interval '30 seconds';
  -- One answer every 6 seconds, all the session long: correct, incorrect and skipped together.
  c_answers_per_minute constant integer := 10;
  v_prev_start timestamptz;
  v_prev_end timestamptz;
begin
  if tg_nargs = 0 then
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
  end if;
  -- Two writers of one student's sessions take turns here, so neither misses the other's row.
  -- The student's users row is the lock (every session references it); no key update does not
  -- block the key-share locks other tables' foreign keys take on it. Taken again after
  -- record_study_session took it: a lock the transaction holds is found, not waited for.
  perform 1 from public.users where id = new.user_id for no key update;
  -- The one session that can overlap the new one the most (proof at the top of the migration).
  select s.started_at, s.ended_at into v_prev_start, v_prev_end
    from public.study_sessions s
    where s.user_id = new.user_id and s.id <> new.id
      and s.voided_at is null and s.ended_at - s.started_at > interval '30 seconds'
      and s.started_at < new.ended_at - c_rounding_overlap
    order by s.started_at desc
    limit 1;
  if found and least(v_prev_end, new.ended_at) - greatest(v_prev_start, new.started_at) > c_rounding_overlap then
    raise exception 'session_overlaps' using errcode = 'P0054',
      hint = 'this session overlaps another session you already recorded';
  end if;
  return new;
end
$$;

-- A void cleared by a writer's own SQL brings the session back into the count: it meets the overlap
-- rule as a new session would, so a session re-recorded over the voided one keeps its place.
drop trigger if exists trg_enforce_study_session_rules_on_unvoid on public.study_sessions;
create trigger trg_enforce_study_session_rules_on_unvoid
  before update of voided_at on public.study_sessions
  for each row when (old.voided_at is not null and new.voided_at is null)
  execute function private.enforce_study_session_rules('overlap');

-- As in 20261126200000_community_study_session_client_id.sql, with the same answers, in fewer
-- statements on the usual path:
--   - the account's rows are made (private.ensure_user_rows, five statements) only when the
--     student's users row is missing, the first write of an account nothing has bootstrapped yet;
--     the row lock that follows is the statement that finds out;
--   - the summary is one upsert that reads its last study day from the row it updates, instead of
--     a locking select and an update (and it cannot miss a summary row a bootstrap did not make).
create or replace function public.record_study_session(
  p_started_at timestamptz,
  p_minutes integer,
  p_subject_id text default null,
  p_subject_name text default null,
  p_task_id text default null,
  p_task_title text default null,
  p_correct integer default 0,
  p_incorrect integer default 0,
  p_skipped integer default 0,
  p_client_id uuid default null
) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_day date;
  v_id uuid;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  -- Two writes of one student's sessions take turns from here (the same lock the plausibility
  -- trigger takes), so a retry racing the first call waits for it and then finds its row below,
  -- instead of reaching the overlap rule and being refused as a second session.
  perform 1 from public.users where id = v_uid for no key update;
  if not found then
    perform private.ensure_user_rows(v_uid);
    perform 1 from public.users where id = v_uid for no key update;
  end if;
  if p_client_id is not null then
    select id into v_id from public.study_sessions where user_id = v_uid and client_id = p_client_id;
    if found then
      return v_id;
    end if;
  end if;

  if p_started_at is null or p_started_at > now() + interval '5 minutes' then
    raise exception 'invalid_session' using errcode = 'P0050', hint = 'a session starts in the past';
  end if;
  if p_minutes is null or p_minutes < 1 or p_minutes > 1440
     or coalesce(p_correct, 0) < 0 or coalesce(p_incorrect, 0) < 0 or coalesce(p_skipped, 0) < 0 then
    raise exception 'invalid_session' using errcode = 'P0050',
      hint = 'minutes are 1 to 1440 and answer counts are not negative';
  end if;
  v_day := private.study_day_of(v_uid, p_started_at);
  if coalesce((select minutes from public.daily_user_stats where user_id = v_uid and study_day = v_day), 0)
     + p_minutes > 1440 then
    raise exception 'too_many_minutes' using errcode = 'P0051', hint = 'a day holds at most 24 hours of study';
  end if;

  -- The lock above already orders writers; the conflict clause is the unique index's last word for
  -- a writer that reached the table some other way.
  insert into public.study_sessions (user_id, client_id, subject_id, subject_name, task_id, task_title, minutes,
                                     correct, incorrect, skipped, started_at, ended_at, study_day)
    values (v_uid, p_client_id, p_subject_id, p_subject_name, p_task_id, p_task_title, p_minutes,
            coalesce(p_correct, 0), coalesce(p_incorrect, 0), coalesce(p_skipped, 0),
            p_started_at, p_started_at + make_interval(mins => p_minutes), v_day)
    on conflict (user_id, client_id) do nothing
    returning id into v_id;
  if v_id is null then
    select id into v_id from public.study_sessions where user_id = v_uid and client_id = p_client_id;
    return v_id;
  end if;

  insert into public.daily_user_stats as d (user_id, study_day, minutes, sessions, correct, incorrect, skipped)
    values (v_uid, v_day, p_minutes, 1, coalesce(p_correct, 0), coalesce(p_incorrect, 0), coalesce(p_skipped, 0))
    on conflict (user_id, study_day) do update
      set minutes = d.minutes + excluded.minutes, sessions = d.sessions + 1,
          correct = d.correct + excluded.correct, incorrect = d.incorrect + excluded.incorrect,
          skipped = d.skipped + excluded.skipped, updated_at = now();

  -- On the existing row every s.* below is its value before this update (the users row lock keeps
  -- it from changing meanwhile); a new row is the student's first study day.
  insert into public.user_stats_summary as s (user_id, total_minutes, total_sessions, total_correct,
                                              total_incorrect, total_skipped, current_streak_days,
                                              longest_streak_days, last_study_day)
    values (v_uid, p_minutes, 1, coalesce(p_correct, 0), coalesce(p_incorrect, 0), coalesce(p_skipped, 0), 1, 1,
            v_day)
    on conflict (user_id) do update
      set total_minutes = s.total_minutes + excluded.total_minutes,
          total_sessions = s.total_sessions + 1,
          total_correct = s.total_correct + excluded.total_correct,
          total_incorrect = s.total_incorrect + excluded.total_incorrect,
          total_skipped = s.total_skipped + excluded.total_skipped,
          current_streak_days = case
            when s.last_study_day = v_day then s.current_streak_days
            when s.last_study_day = v_day - 1 then s.current_streak_days + 1
            when s.last_study_day > v_day then s.current_streak_days  -- a late-settled older session
            else 1 end,
          longest_streak_days = greatest(s.longest_streak_days, case
            when s.last_study_day = v_day - 1 then s.current_streak_days + 1
            when s.last_study_day is null or s.last_study_day < v_day - 1 then 1
            else s.current_streak_days end),
          last_study_day = greatest(coalesce(s.last_study_day, v_day), v_day),
          updated_at = now();
  return v_id;
end
$$;
comment on function public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer,
  integer, uuid)
  is 'rpc: settles the caller''s finished session into sessions, daily stats and the summary; a repeated client id returns the first session''s id and changes nothing.';

revoke execute on function private.enforce_study_session_rules() from public, anon, authenticated;
revoke execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer, uuid)
  from public, anon;
grant execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer, uuid)
  to authenticated;

-- Idempotent study session writes: the app names each finished session with a client id (a uuid it
-- makes once) and sends it again after a lost answer, a reload or an offline queue's retry. The
-- second call with the same client id returns the first call's session id and changes nothing, so a
-- retry never doubles a student's minutes. Unique per student: one student's ids say nothing about
-- another's. Sessions recorded before this migration (and by writers that send none) have no client
-- id; nulls never collide.
-- Rules: docs/database.md#idempotent-writes. Idempotent: part of community-patch-v6.sql.

alter table public.study_sessions add column if not exists client_id uuid;
create unique index if not exists study_sessions_user_client_key on public.study_sessions (user_id, client_id);

-- The nine-argument function is replaced, not overloaded: with both present, a call naming only
-- the first arguments would match either and fail as ambiguous.
drop function if exists public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer,
  integer);

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
  v_last date;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  perform private.ensure_user_rows(v_uid);
  -- Two writes of one student's sessions take turns from here (the same lock the plausibility
  -- trigger takes), so a retry racing the first call waits for it and then finds its row below,
  -- instead of reaching the overlap rule and being refused as a second session.
  perform 1 from public.users where id = v_uid for no key update;
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

  select last_study_day into v_last from public.user_stats_summary where user_id = v_uid for update;
  update public.user_stats_summary
    set total_minutes = total_minutes + p_minutes,
        total_sessions = total_sessions + 1,
        total_correct = total_correct + coalesce(p_correct, 0),
        total_incorrect = total_incorrect + coalesce(p_incorrect, 0),
        total_skipped = total_skipped + coalesce(p_skipped, 0),
        current_streak_days = case
          when v_last = v_day then current_streak_days
          when v_last = v_day - 1 then current_streak_days + 1
          when v_last > v_day then current_streak_days  -- a late-settled older session
          else 1 end,
        longest_streak_days = greatest(longest_streak_days, case
          when v_last = v_day - 1 then current_streak_days + 1
          when v_last is null or v_last < v_day - 1 then 1
          else current_streak_days end),
        last_study_day = greatest(coalesce(v_last, v_day), v_day),
        updated_at = now()
    where user_id = v_uid;
  return v_id;
end
$$;
comment on function public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer,
  integer, uuid)
  is 'rpc: settles the caller''s finished session into sessions, daily stats and the summary; a repeated client id returns the first session''s id and changes nothing.';

revoke execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer, uuid)
  from public, anon;
grant execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer, uuid)
  to authenticated;

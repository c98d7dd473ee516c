-- Study stats: record_study_session settles a finished session into study_sessions,
-- daily_user_stats (the user's own study day) and user_stats_summary in one transaction.
-- Also repeats the leaderboard read policies (20261122209000) so community-patch-v6.sql has them.
-- Idempotent: part of community-patch-v6.sql.
-- Rules: docs/database.md#study-data-and-statistics (the study day, points).

-- A user's study day for an instant: local time (timezone_offset_minutes east of UTC) minus
-- day_offset_hours, so 02:00 with offset 4 still belongs to the previous day.
create or replace function private.study_day_of(p_user_id uuid, p_at timestamptz) returns date
language sql
stable
security definer
set search_path = ''
as $$
  select ((p_at at time zone 'UTC')
          + make_interval(mins => coalesce(s.timezone_offset_minutes, 0))
          - make_interval(hours => coalesce(s.day_offset_hours, 0)))::date
  from (select 1) as one
  left join public.user_settings s on s.user_id = p_user_id
$$;

create or replace function public.record_study_session(
  p_started_at timestamptz,
  p_minutes integer,
  p_subject_id text default null,
  p_subject_name text default null,
  p_task_id text default null,
  p_task_title text default null,
  p_correct integer default 0,
  p_incorrect integer default 0,
  p_skipped integer default 0
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
  if p_started_at is null or p_started_at > now() + interval '5 minutes' then
    raise exception 'invalid_session' using errcode = 'P0050', hint = 'a session starts in the past';
  end if;
  if p_minutes is null or p_minutes < 1 or p_minutes > 1440
     or coalesce(p_correct, 0) < 0 or coalesce(p_incorrect, 0) < 0 or coalesce(p_skipped, 0) < 0 then
    raise exception 'invalid_session' using errcode = 'P0050',
      hint = 'minutes are 1 to 1440 and answer counts are not negative';
  end if;
  perform private.ensure_user_rows(v_uid);
  v_day := private.study_day_of(v_uid, p_started_at);
  if coalesce((select minutes from public.daily_user_stats where user_id = v_uid and study_day = v_day), 0)
     + p_minutes > 1440 then
    raise exception 'too_many_minutes' using errcode = 'P0051', hint = 'a day holds at most 24 hours of study';
  end if;

  insert into public.study_sessions (user_id, subject_id, subject_name, task_id, task_title, minutes,
                                     correct, incorrect, skipped, started_at, ended_at, study_day)
    values (v_uid, p_subject_id, p_subject_name, p_task_id, p_task_title, p_minutes,
            coalesce(p_correct, 0), coalesce(p_incorrect, 0), coalesce(p_skipped, 0),
            p_started_at, p_started_at + make_interval(mins => p_minutes), v_day)
    returning id into v_id;

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
comment on function public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer)
  is 'rpc: settles the caller''s finished session into sessions, daily stats and the summary.';

-- Leaderboard read policies, repeated from 20261122209000_leaderboard_read_policies.sql.
drop policy if exists "authenticated read all summaries for leaderboards" on public.user_stats_summary;
create policy "authenticated read all summaries for leaderboards" on public.user_stats_summary
  for select to authenticated using (true);
drop policy if exists "authenticated read all daily stats for leaderboards" on public.daily_user_stats;
create policy "authenticated read all daily stats for leaderboards" on public.daily_user_stats
  for select to authenticated using (true);
grant select on public.user_stats_summary, public.daily_user_stats to authenticated;

revoke execute on function private.study_day_of(uuid, timestamptz) from public, anon, authenticated;
revoke execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer)
  from public, anon;
grant execute on function
  public.record_study_session(timestamptz, integer, text, text, text, text, integer, integer, integer)
  to authenticated;

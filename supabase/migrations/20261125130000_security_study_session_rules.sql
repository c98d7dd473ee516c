-- Plausible study sessions: a session has ended (give or take a clock's skew), counts no more minutes
-- than passed between its start and end, overlaps none of the same student's other sessions, and
-- holds no more answers than a student can give in its minutes. Held by a trigger on the table, so
-- every writer (record_study_session, the service role, the SQL editor) meets the same rules.
-- Rows stored before this migration are left as they are: the rules apply to new rows, and to an
-- update that changes a session's times, minutes, answer counts or owner.
-- Rules: docs/database.md#plausible-sessions. Idempotent: part of community-patch-v6.sql.

-- The overlap check reads the student's sessions around the new one's time span: ordered by end, a
-- session appended after the last one finds at most the few that end after it starts.
create index if not exists study_sessions_user_ended_idx on public.study_sessions (user_id, ended_at);

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
    where s.user_id = new.user_id and s.id <> new.id
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

drop trigger if exists trg_enforce_study_session_rules on public.study_sessions;
create trigger trg_enforce_study_session_rules
  before insert or update of user_id, started_at, ended_at, minutes, correct, incorrect, skipped
  on public.study_sessions
  for each row execute function private.enforce_study_session_rules();

revoke execute on function private.enforce_study_session_rules() from public, anon, authenticated;

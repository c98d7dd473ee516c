-- Plausible study sessions (docs/database.md#plausible-sessions): a session ends no later than
-- now() + 2 minutes, counts at most its whole minutes of wall time, overlaps none of the same
-- student's sessions by more than half a minute, and holds at most 10 answers per minute. Each rule
-- at its edge and just past it, through record_study_session and through a direct table write.
begin;
select plan(31);

select tests.create_user('sam');
select tests.create_user('tia');
select tests.create_user('fay');

-- The session ends no later than now() + 2 minutes --------------------------------------------------

select tests.authenticate_as('sam');
select lives_ok($$select public.record_study_session(now() - interval '28 minutes', 30)$$,
  'a session ending exactly 2 minutes from now is accepted (clock skew)');
select throws_ok($$select public.record_study_session(now() - interval '27 minutes 59 seconds', 30)$$,
  'P0052', 'session_in_future', 'a session ending 2 minutes and 1 second from now is refused');

select tests.authenticate_as('fay');
select throws_ok($$select public.record_study_session(now(), 1440, null, null, null, null, 1000000)$$,
  'P0052', 'session_in_future', 'a day of study starting now, with a million answers, is refused');
select is((select total_minutes + total_correct from public.user_stats_summary where user_id = auth.uid()), 0,
  'and the refused session adds nothing to her statistics');

-- Answers: at most 10 per minute ------------------------------------------------------------------

select tests.authenticate_as('sam');
select lives_ok($$select public.record_study_session('2026-01-06 10:00+00', 10, null, null, null, null, 60, 30, 10)$$,
  '100 answers in 10 minutes are accepted');
select throws_ok($$select public.record_study_session('2026-01-06 11:00+00', 10, null, null, null, null, 61, 30, 10)$$,
  'P0055', 'too_many_answers', '101 answers in 10 minutes are refused');
select throws_ok($$select public.record_study_session('2026-01-06 12:00+00', 1, null, null, null, null, 0, 0, 11)$$,
  'P0055', 'too_many_answers', 'skipped questions count as answers');

-- Two sessions of one student never overlap -------------------------------------------------------

select lives_ok($$select public.record_study_session('2026-01-07 10:00+00', 30)$$, 'a session 10:00-10:30');
select lives_ok($$select public.record_study_session('2026-01-07 10:30+00', 20)$$,
  'a session starting when the last ended (touching) is accepted');
select throws_ok($$select public.record_study_session('2026-01-07 10:49+00', 20)$$,
  'P0054', 'session_overlaps', 'a session overlapping the last by a minute is refused');
select lives_ok($$select public.record_study_session('2026-01-07 10:49:30+00', 10)$$,
  'an overlap of 30 seconds (a rounded minute) is accepted');
select throws_ok($$select public.record_study_session('2026-01-07 10:58:59+00', 10)$$,
  'P0054', 'session_overlaps', 'an overlap of 31 seconds is refused');
select throws_ok($$select public.record_study_session('2026-01-07 09:00+00', 180)$$,
  'P0054', 'session_overlaps', 'a session enclosing others is refused');
select lives_ok($$select public.record_study_session('2026-01-07 08:00+00', 30)$$,
  'an earlier session settled late, overlapping nothing, is accepted');
select is((select count(*)::int from public.study_sessions where study_day = '2026-01-07'), 4,
  'only the accepted sessions are stored');
select tests.authenticate_as('tia');
select lives_ok($$select public.record_study_session('2026-01-07 10:10+00', 30)$$,
  'another student''s session at the same time is accepted');

-- Students never write the table directly ---------------------------------------------------------

select tests.authenticate_as('sam');
select throws_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (auth.uid(), 30, '2026-01-08 10:00+00', '2026-01-08 10:30+00', '2026-01-08')$$,
  '42501', null, 'a student cannot insert a session directly');
select throws_ok($$update public.study_sessions set minutes = 1440$$,
  '42501', null, 'nor update one');

-- Every writer meets the same rules: the service role, directly -----------------------------------

select tests.authenticate_as_service_role();
select lives_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 30, '2026-01-09 10:00+00', '2026-01-09 10:30+00', '2026-01-09')$$,
  'a direct insert counting its wall time is accepted');
select throws_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 31, '2026-01-09 11:00+00', '2026-01-09 11:30+00', '2026-01-09')$$,
  'P0053', 'minutes_exceed_duration', 'one minute more than its wall time is refused');
select throws_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 30, '2026-01-09 12:00+00', '2026-01-09 12:29:59+00', '2026-01-09')$$,
  'P0053', 'minutes_exceed_duration', 'a minute not fully passed does not count (rounded down)');
select throws_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 30, now() - interval '28 minutes', now() + interval '2 minutes 1 second', current_date)$$,
  'P0052', 'session_in_future', 'a direct insert ending in the future is refused');
select throws_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 10, '2026-01-09 10:20+00', '2026-01-09 10:40+00', '2026-01-09')$$,
  'P0054', 'session_overlaps', 'a direct insert overlapping her session is refused');
select throws_ok($$insert into public.study_sessions (user_id, minutes, correct, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 10, 101, '2026-01-09 13:00+00', '2026-01-09 13:10+00', '2026-01-09')$$,
  'P0055', 'too_many_answers', 'a direct insert with 101 answers in 10 minutes is refused');
select lives_ok($$insert into public.study_sessions (user_id, minutes, correct, started_at, ended_at, study_day)
  values (tests.get_user_id('sam'), 10, 100, '2026-01-09 13:00+00', '2026-01-09 13:10+00', '2026-01-09')$$,
  'and one with 100 is accepted');

-- Updates that change a session's times or counts, too --------------------------------------------

select throws_ok($$update public.study_sessions set ended_at = now() + interval '1 day', minutes = 30
  where started_at = '2026-01-09 10:00+00'$$,
  'P0052', 'session_in_future', 'moving a session''s end into the future is refused');
select throws_ok($$update public.study_sessions set minutes = 31 where started_at = '2026-01-09 10:00+00'$$,
  'P0053', 'minutes_exceed_duration', 'raising its minutes past its wall time is refused');
select throws_ok($$update public.study_sessions set started_at = '2026-01-09 12:55+00', ended_at = '2026-01-09 13:25+00'
  where started_at = '2026-01-09 10:00+00'$$,
  'P0054', 'session_overlaps', 'moving it onto another session is refused');
select lives_ok($$update public.study_sessions set started_at = '2026-01-09 10:05+00', ended_at = '2026-01-09 10:35+00'
  where started_at = '2026-01-09 10:00+00'$$,
  'moving it where it overlaps nothing but itself is accepted');

-- Rows stored before the rules stay, and stay editable where the rules are not touched -----------

reset role;
alter table public.study_sessions disable trigger trg_enforce_study_session_rules;
insert into public.study_sessions (user_id, minutes, correct, started_at, ended_at, study_day)
  values (tests.get_user_id('tia'), 1440, 1000000, '2026-01-10 00:00+00', '2026-01-11 00:00+00', '2026-01-10');
alter table public.study_sessions enable trigger trg_enforce_study_session_rules;
select tests.authenticate_as_service_role();
select lives_ok($$update public.study_sessions set subject_name = 'Legacy' where minutes = 1440$$,
  'an old implausible row keeps its place and its other columns can change');
select throws_ok($$update public.study_sessions set correct = 999999 where minutes = 1440$$,
  'P0055', 'too_many_answers', 'but a change of its counts meets the rules');

select * from finish();
rollback;

-- record_study_session: one transaction over sessions, daily stats and the summary; validation;
-- the user's own study day; and the leaderboard read policies.
begin;
select plan(12);

select tests.create_user('stu');
select tests.create_user('oth');
reset role;
update public.user_settings set day_offset_hours = 4 where user_id = tests.get_user_id('stu');

select tests.authenticate_as('stu');
select isnt(public.record_study_session('2026-03-10 02:00+00', 45, 's1', 'Maths', null, null, 8, 2, 0), null,
  'a finished session is settled');
select is((select study_day from public.study_sessions), '2026-03-09'::date,
  'a session at 02:00 with offset 4 counts for the previous day');
select is((select row(minutes, sessions, correct, incorrect)::text from public.daily_user_stats
  where study_day = '2026-03-09'), row(45, 1, 8, 2)::text, 'daily stats hold the session');
select public.record_study_session('2026-03-10 05:00+00', 15, 's1', 'Maths');
select is((select row(total_minutes, total_sessions, total_correct, current_streak_days)::text
  from public.user_stats_summary where user_id = auth.uid()), row(60, 2, 8, 2)::text,
  'the summary adds up and a next-day session extends the streak');
select throws_ok($$select public.record_study_session(now() - interval '1 hour', -5)$$, 'P0050', 'invalid_session',
  'negative minutes are refused');
select throws_ok($$select public.record_study_session(now() - interval '1 hour', 1441)$$, 'P0050', 'invalid_session',
  'more than a day of minutes is refused');
select throws_ok($$select public.record_study_session(now() - interval '1 hour', 10, null, null, null, null, -1)$$,
  'P0050', 'invalid_session', 'negative answer counts are refused');
select public.record_study_session('2026-03-10 12:00+00', 1380);
select throws_ok($$select public.record_study_session('2026-03-10 13:00+00', 60)$$, 'P0051', 'too_many_minutes',
  'a day holds at most 24 hours per user');
select throws_ok($$insert into public.daily_user_stats (user_id, study_day, minutes) values (auth.uid(), current_date, 5)$$,
  '42501', null, 'stats are never written directly');

-- Leaderboards read the statistics of everyone who shares them (the switches: 42-leaderboard-privacy).
update public.community_enrollments set privacy = privacy || '{"shareQuestionCounts": true}';
select tests.authenticate_as('oth');
select is((select total_minutes from public.user_stats_summary where user_id = tests.get_user_id('stu')), 1440,
  'another signed-in user reads the summary for leaderboards');
select is((select count(*)::int from public.daily_user_stats where user_id = tests.get_user_id('stu')), 2,
  'and the daily stats');
select tests.clear_authentication();
select throws_ok('select * from public.user_stats_summary', '42501', null, 'anon reads no statistics');

select * from finish();
rollback;

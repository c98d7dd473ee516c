-- The overlap rule read in one index probe (docs/database.md#plausible-sessions): the same answers
-- as reading every session around the new one, at the edges the probe's proof leans on: touching
-- and equal timestamps, short and zero-length sessions, voided sessions under the new one or among
-- the candidates, late sessions at both ends of a history and in its middle; a void cleared by SQL
-- meets the rule; and record_study_session's shorter path still settles every statistic.
begin;
select plan(40);

select tests.create_user('uma');
select tests.create_user('ned');
select tests.create_user('ora');

-- The index the probe reads ------------------------------------------------------------------------

select has_index('public', 'study_sessions', 'study_sessions_user_counted_start_idx',
  'the counted long sessions are indexed by student and start');
select hasnt_index('public', 'study_sessions', 'study_sessions_user_ended_idx',
  'the index by end, which served only the old check, is gone');

-- A history of 48 sessions, 10:00-10:30 every day from 2026-03-01 to 2026-04-17 ----------------------

select tests.authenticate_as('uma');
select public.record_study_session(('2026-03-01 10:00+00'::timestamptz + make_interval(days => g)), 30)
  from generate_series(0, 47) g;
select is((select count(*)::int from public.study_sessions where user_id = tests.get_user_id('uma')), 48,
  'the history is stored');

-- Late sessions at both ends of the history and in its middle --------------------------------------

select lives_ok($$select public.record_study_session('2026-03-01 09:30+00', 30)$$,
  'a session before the first one, touching its start, is accepted');
select throws_ok($$select public.record_study_session('2026-03-01 09:00+00', 31)$$,
  'P0054', 'session_overlaps', 'one before the first one overlapping it by a minute is refused');
select lives_ok($$select public.record_study_session('2026-03-01 09:00:30+00', 30)$$,
  'one overlapping the earliest session by exactly 30 seconds is accepted');
select lives_ok($$select public.record_study_session('2026-04-17 10:30+00', 30)$$,
  'a session after the last one, touching its end, is accepted');
select throws_ok($$select public.record_study_session('2026-04-17 11:00+00'::timestamptz - interval '31 seconds', 30)$$,
  'P0054', 'session_overlaps', 'one overlapping the newest by 31 seconds is refused');
select lives_ok($$select public.record_study_session('2026-03-20 10:30+00', 60)$$,
  'a late session in the middle of the history, in a gap, touching the one before, is accepted');
select throws_ok($$select public.record_study_session('2026-03-24 10:29+00', 30)$$,
  'P0054', 'session_overlaps', 'a late one overlapping a session in the middle by a minute is refused');
select throws_ok($$select public.record_study_session('2026-03-24 09:45+00', 30)$$,
  'P0054', 'session_overlaps', 'one overlapping the start of a session in the middle is refused');
select throws_ok($$select public.record_study_session('2026-03-25 10:05+00', 10)$$,
  'P0054', 'session_overlaps', 'one held inside a session in the middle is refused');
select throws_ok($$select public.record_study_session('2026-03-26 09:00+00', 600)$$,
  'P0054', 'session_overlaps', 'one of ten hours around a session is refused');
select throws_ok($$select public.record_study_session('2026-03-09 20:00+00', 900)$$,
  'P0054', 'session_overlaps', 'one from the evening before across midnight onto a session is refused');

-- Equal timestamps ---------------------------------------------------------------------------------

select throws_ok($$select public.record_study_session('2026-03-27 10:00+00', 30)$$,
  'P0054', 'session_overlaps', 'the same start and end as a stored session is refused');
select throws_ok($$select public.record_study_session('2026-03-28 10:00+00', 1)$$,
  'P0054', 'session_overlaps', 'the same start, a minute long, is refused');
select throws_ok($$select public.record_study_session('2026-03-29 09:00+00', 90)$$,
  'P0054', 'session_overlaps', 'the same end, starting earlier, is refused');
select lives_ok($$select public.record_study_session('2026-03-30 09:00+00', 60)$$,
  'ending exactly where a session starts is accepted');

-- Short and zero-length sessions ------------------------------------------------------------------

-- Under the rules a session lasts at least its minutes, one or more; a row stored before them may
-- be shorter than 30 seconds, even zero-length. Such a row overlaps nothing by more than 30 seconds,
-- so the probe skips it: it must not stop at one that starts inside a longer session.
reset role;
alter table public.study_sessions disable trigger trg_enforce_study_session_rules;
insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('uma'), 1, '2026-04-01 10:10+00', '2026-04-01 10:10+00', '2026-04-01'),
         (tests.get_user_id('uma'), 1, '2026-04-02 10:20+00', '2026-04-02 10:20:30+00', '2026-04-02');
alter table public.study_sessions enable trigger trg_enforce_study_session_rules;
select tests.authenticate_as_service_role();
select lives_ok($$insert into public.study_sessions (user_id, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('uma'), 1, '2026-04-01 10:30+00', '2026-04-01 10:31+00', '2026-04-01')$$,
  'a direct write of a one-minute session touching a session is accepted');
select throws_ok($$update public.study_sessions set started_at = '2026-04-01 10:29:29+00', ended_at = '2026-04-01 10:30:29+00'
    where user_id = tests.get_user_id('uma') and started_at = '2026-04-01 10:30+00'$$,
  'P0054', 'session_overlaps', 'moved 31 seconds into it, it is refused');
select lives_ok($$update public.study_sessions set started_at = '2026-04-01 10:29:30+00', ended_at = '2026-04-01 10:30:30+00'
    where user_id = tests.get_user_id('uma') and started_at = '2026-04-01 10:30+00'$$,
  'moved 30 seconds into it, it is accepted');
select tests.authenticate_as('uma');
select throws_ok($$select public.record_study_session('2026-04-02 10:25+00', 20)$$,
  'P0054', 'session_overlaps',
  'a session overlapping a long one is refused though a 30-second one starts inside it later');
select throws_ok($$select public.record_study_session('2026-04-01 10:05+00', 20)$$,
  'P0054', 'session_overlaps', 'and so is one around a zero-length one, inside a long one');

-- Voided sessions ----------------------------------------------------------------------------------

-- 2026-04-05 10:00-10:30 is voided, and 09:00-11:00 recorded over it: the voided session starts
-- later than the counted one, so a probe that did not skip it would stop at it and miss the other.
select tests.authenticate_as_service_role();
select public.void_study_session(
  (select id from public.study_sessions where user_id = tests.get_user_id('uma') and started_at = '2026-04-05 10:00+00'),
  'test timer', 'ops');
select tests.authenticate_as('uma');
select lives_ok($$select public.record_study_session('2026-04-05 09:00+00', 120)$$,
  'a session over a voided one is accepted');
select throws_ok($$select public.record_study_session('2026-04-05 10:40+00', 15)$$,
  'P0054', 'session_overlaps',
  'a session after the voided one, inside the counted one that starts before it, is refused');
select lives_ok($$select public.record_study_session('2026-04-05 11:00+00', 15)$$,
  'one touching the counted one''s end is accepted');

-- Clearing a void by SQL brings a session back only if it overlaps nothing ------------------------

select tests.authenticate_as_service_role();
select throws_ok($$update public.study_sessions set voided_at = null, voided_by = null, void_reason = null
    where user_id = tests.get_user_id('uma') and started_at = '2026-04-05 10:00+00'$$,
  'P0054', 'session_overlaps', 'a void cleared under a session recorded since is refused');
select is((select voided_at is not null from public.study_sessions
    where user_id = tests.get_user_id('uma') and started_at = '2026-04-05 10:00+00'), true,
  'and the session stays voided');
reset role;
alter table public.study_sessions disable trigger trg_enforce_study_session_rules;
insert into public.study_sessions (user_id, minutes, correct, started_at, ended_at, study_day, voided_at, voided_by,
                                   void_reason)
  values (tests.get_user_id('ora'), 60, 1000000, '2026-04-06 10:00+00', '2026-04-06 10:30+00', '2026-04-06', now(),
          'ops', 'legacy');
alter table public.study_sessions enable trigger trg_enforce_study_session_rules;
select tests.authenticate_as_service_role();
select lives_ok($$update public.study_sessions set voided_at = null, voided_by = null, void_reason = null
    where user_id = tests.get_user_id('ora')$$,
  'a void cleared on an old implausible session that overlaps nothing is accepted: only the overlap rule is checked');

-- Moving a session: its own old place never stands in its way ----------------------------------------

select lives_ok($$update public.study_sessions set started_at = '2026-03-15 10:15+00', ended_at = '2026-03-15 10:45+00'
    where user_id = tests.get_user_id('uma') and started_at = '2026-03-15 10:00+00'$$,
  'moving a session over half of its own old place is accepted');
select throws_ok($$update public.study_sessions set started_at = '2026-03-16 10:15+00', ended_at = '2026-03-16 10:45+00'
    where user_id = tests.get_user_id('uma') and started_at = '2026-03-15 10:15+00'$$,
  'P0054', 'session_overlaps', 'moving it onto the next day''s session is refused');

-- Another student's history is not hers ----------------------------------------------------------

select tests.authenticate_as('ned');
select lives_ok($$select public.record_study_session('2026-03-10 10:00+00', 30)$$,
  'another student''s session at her time is accepted');

-- The shorter path settles everything the longer one did ------------------------------------------

select is((select row(total_minutes, total_sessions, current_streak_days, longest_streak_days, last_study_day)::text
    from public.user_stats_summary where user_id = tests.get_user_id('ned')),
  row(30, 1, 1, 1, '2026-03-10'::date)::text, 'her summary counts the session');
select lives_ok($$select public.record_study_session('2026-03-11 10:00+00', 20)$$, 'and the next day''s');
select is((select row(total_minutes, total_sessions, current_streak_days, longest_streak_days, last_study_day)::text
    from public.user_stats_summary where user_id = tests.get_user_id('ned')),
  row(50, 2, 2, 2, '2026-03-11'::date)::text, 'a streak of two days');
select is((select row(minutes, sessions)::text from public.daily_user_stats
    where user_id = tests.get_user_id('ned') and study_day = '2026-03-10'), row(30, 1)::text,
  'and her day');
reset role;
delete from public.user_stats_summary where user_id = tests.get_user_id('ned');
select tests.authenticate_as('ned');
select lives_ok($$select public.record_study_session('2026-03-13 10:00+00', 20, null, null, null, null, 3, 1, 0)$$,
  'a student whose summary row is missing still records');
select is((select row(total_minutes, total_sessions, total_correct, total_incorrect, current_streak_days,
                      longest_streak_days, last_study_day)::text
    from public.user_stats_summary where user_id = tests.get_user_id('ned')),
  row(20, 1, 3, 1, 1, 1, '2026-03-13'::date)::text, 'and gets one, counting that session');
reset role;
delete from public.users where id = tests.get_user_id('ned');
select tests.authenticate_as('ned');
select lives_ok($$select public.record_study_session('2026-03-14 10:00+00', 25)$$,
  'an account whose rows are gone gets them made by its first session');
select is((select row((select count(*) from public.user_profiles where user_id = auth.uid()),
                      (select count(*) from public.user_settings where user_id = auth.uid()),
                      (select total_minutes from public.user_stats_summary where user_id = auth.uid()))::text),
  row(1, 1, 25)::text, 'profile, settings and a summary counting it');

select * from finish();
rollback;

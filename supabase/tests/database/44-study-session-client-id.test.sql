-- Idempotent study session writes (docs/database.md#idempotent-writes): a repeated client id returns
-- the first session's id and changes nothing; client ids are unique per student only; a student
-- reads her own sessions, with every column the app pulls at sign-in, and nobody else's.
begin;
select plan(21);

select tests.create_user('ida');
select tests.create_user('jon');

-- The ten-argument function replaces the nine-argument one ---------------------------------------

select has_function('public', 'record_study_session',
  array['timestamp with time zone', 'integer', 'text', 'text', 'text', 'text', 'integer', 'integer', 'integer', 'uuid'],
  'record_study_session takes a client id as its last argument');
select hasnt_function('public', 'record_study_session',
  array['timestamp with time zone', 'integer', 'text', 'text', 'text', 'text', 'integer', 'integer', 'integer'],
  'the nine-argument signature is gone (no ambiguous overload)');

-- A repeated client id changes nothing -----------------------------------------------------------

select tests.authenticate_as('ida');
create temporary table first_call on commit drop as
  select public.record_study_session('2026-02-02 10:00+00', 30, 's1', 'Maths', 't1', 'Algebra', 5, 2, 1,
    'a0000000-0000-4000-8000-000000000001') as id;
select isnt((select id from first_call), null, 'a session with a client id is settled');
select is(public.record_study_session('2026-02-02 10:00+00', 30, 's1', 'Maths', 't1', 'Algebra', 5, 2, 1,
    'a0000000-0000-4000-8000-000000000001'), (select id from first_call),
  'the same call again returns the first session''s id');
select is(public.record_study_session('2026-02-02 14:00+00', 45, null, null, null, null, 0, 0, 0,
    'a0000000-0000-4000-8000-000000000001'), (select id from first_call),
  'a call with the same client id and other values also returns the first id');
select is((select count(*)::int from public.study_sessions where user_id = auth.uid()), 1,
  'and only one session is stored');
select is((select row(minutes, sessions, correct, incorrect, skipped)::text from public.daily_user_stats
  where user_id = auth.uid() and study_day = '2026-02-02'), row(30, 1, 5, 2, 1)::text,
  'the daily stats are not doubled');
select is((select row(total_minutes, total_sessions, total_correct, current_streak_days)::text
  from public.user_stats_summary where user_id = auth.uid()), row(30, 1, 5, 1)::text,
  'nor the summary');
select lives_ok($$select public.record_study_session('2026-02-02 10:30+00', 20, null, null, null, null, 0, 0, 0,
    'a0000000-0000-4000-8000-000000000002')$$, 'a new client id is a new session');
select lives_ok($$select public.record_study_session('2026-02-02 11:00+00', 20)$$,
  'a session without a client id is still accepted');
select lives_ok($$select public.record_study_session('2026-02-02 11:30+00', 20)$$,
  'and so is a second one (no client id never collides)');
select is((select total_minutes from public.user_stats_summary where user_id = auth.uid()), 90,
  'each distinct session counts once');
select throws_ok($$select public.record_study_session('2026-02-02 11:40+00', 20, null, null, null, null, 0, 0, 0,
    'a0000000-0000-4000-8000-000000000003')$$, 'P0054', 'session_overlaps',
  'a new client id still meets the plausibility rules');

-- Client ids are unique per student --------------------------------------------------------------

select tests.authenticate_as('jon');
select isnt(public.record_study_session('2026-02-02 10:00+00', 30, null, null, null, null, 0, 0, 0,
    'a0000000-0000-4000-8000-000000000001'), (select id from first_call),
  'another student''s session with the same client id is her own new session');
select is((select total_minutes from public.user_stats_summary where user_id = auth.uid()), 30,
  'and counts for her');

-- A student reads her own sessions and nobody else's ----------------------------------------------

select tests.authenticate_as('ida');
select is((select count(*)::int from public.study_sessions), 4, 'she reads her own four sessions');
select is((select row(client_id, started_at, ended_at, minutes, subject_id, subject_name, task_id, task_title,
    correct, incorrect, skipped)::text
  from public.study_sessions where id = (select id from first_call)),
  row('a0000000-0000-4000-8000-000000000001'::uuid, '2026-02-02 10:00+00'::timestamptz,
    '2026-02-02 10:30+00'::timestamptz, 30, 's1', 'Maths', 't1', 'Algebra', 5, 2, 1)::text,
  'with every column the app pulls at sign-in');
select is((select count(*)::int from public.study_sessions where user_id = tests.get_user_id('jon')), 0,
  'she reads none of another student''s sessions');
select tests.authenticate_as('jon');
select is((select count(*)::int from public.study_sessions where id = (select id from first_call)), 0,
  'and he reads none of hers, even by id');
select tests.clear_authentication();
select throws_ok('select * from public.study_sessions', '42501', null, 'anon reads no sessions');
select throws_ok($$select public.record_study_session('2026-02-03 10:00+00', 30, null, null, null, null, 0, 0, 0,
    'a0000000-0000-4000-8000-000000000009')$$, '42501', null, 'anon cannot record a session');

select * from finish();
rollback;

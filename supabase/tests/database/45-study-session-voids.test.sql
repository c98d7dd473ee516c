-- Voided sessions (docs/database.md#voided-sessions): only an admin account or the service role
-- voids a session, with a reason; the row is kept with who, when and why, and its student sees it;
-- her daily stats, totals, streaks and every leaderboard drop it at once; a second void is refused;
-- a voided session no longer blocks an honest re-record of the same time.
begin;
select plan(42);

select tests.create_user('vic');  -- the student whose session is voided; shares her numbers
select tests.create_user('wes');  -- another student, in a group with her
select tests.create_user('ada');  -- an admin account
reset role;
insert into public.user_roles (user_id, role) values (tests.get_user_id('ada'), 'admin');
update public.community_enrollments
  set privacy = privacy || '{"stealthMode": false, "shareExactTime": true, "shareQuestionCounts": true}'
  where user_id = tests.get_user_id('vic');
-- Three days ago, two days ago and yesterday (UTC, her study day without settings), at 10:00 and 11:00.
create temp table d on commit drop as
  select today,
         ((today - 3) + time '10:00') at time zone 'UTC' as at3, ((today - 2) + time '10:00') at time zone 'UTC' as at2,
         ((today - 1) + time '10:00') at time zone 'UTC' as at1, ((today - 1) + time '11:00') at time zone 'UTC' as at1b
  from (select (now() at time zone 'UTC')::date as today) t;
grant select on d to public;

select tests.authenticate_as('wes');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Void Hall', 'public', 'open', tests.get_user_id('wes'));
select tests.authenticate_as('vic');
select public.community_join_group((select id from public.groups where name = 'Void Hall'));

-- Four sessions on three consecutive days: 135 minutes, 17 correct, a streak of 3.
select public.record_study_session((select at3 from d), 40, 's1', 'Maths', null, null, 5, 0, 0);
select public.record_study_session((select at2 from d), 45, 's1', 'Maths', null, null, 10, 0, 0);
select public.record_study_session((select at1 from d), 30, 's2', 'Physics', null, null, 2, 0, 0);
select public.record_study_session((select at1b from d), 20);
reset role;
create temp table target on commit drop as
  select id, study_day from public.study_sessions
  where user_id = tests.get_user_id('vic') and study_day = (select today from d) - 2;
grant select on target to public;

-- Only an admin voids ----------------------------------------------------------------------------

select tests.authenticate_as('vic');
select throws_ok($$select public.void_study_session((select id from target), 'mine')$$,
  'P0092', 'not_admin', 'a student cannot void her own session');
select tests.authenticate_as('wes');
select throws_ok($$select public.void_study_session((select id from target), 'hers')$$,
  'P0092', 'not_admin', 'another student cannot void it');
select throws_ok($$select public.void_study_session((select id from target), 'hers', 'service_role')$$,
  'P0092', 'not_admin', 'naming the service role as the voider changes nothing');
select set_config('request.jwt.claims', '{"role": "service_role"}', true);
select throws_ok($$select public.void_study_session((select id from target), 'claims')$$,
  'P0001', 'not_authenticated', 'claims that say service_role do not make a student the service role');
select tests.clear_authentication();
select throws_ok($$select public.void_study_session((select id from target), 'anon')$$,
  '42501', null, 'anon cannot call it');
select tests.authenticate_as('vic');
select throws_ok($$update public.study_sessions set voided_at = now(), voided_by = 'me', void_reason = 'x'$$,
  '42501', null, 'a student cannot write the void columns directly');
select is((select count(*)::int from public.study_sessions where voided_at is not null), 0,
  'after the refusals nothing is voided');
select is((select row(total_minutes, total_sessions, total_correct, current_streak_days, longest_streak_days)::text
  from public.user_stats_summary where user_id = auth.uid()), row(135, 4, 17, 3, 3)::text,
  'and her summary is as recorded');

-- The reason is required ------------------------------------------------------------------------

select tests.authenticate_as('ada');
select throws_ok($$select public.void_study_session((select id from target), null)$$,
  'P0057', 'invalid_void_reason', 'a void without a reason is refused');
select throws_ok($$select public.void_study_session((select id from target), '   ')$$,
  'P0057', 'invalid_void_reason', 'a blank reason is refused');
select throws_ok($$select public.void_study_session((select id from target), repeat('x', 501))$$,
  'P0057', 'invalid_void_reason', 'a reason over 500 characters is refused');
select throws_ok($$select public.void_study_session('c0000000-0000-4000-8000-000000000000', 'gone')$$,
  'P0058', 'session_not_found', 'an unknown session is refused');

-- An admin account voids, and it counts nowhere -------------------------------------------------

select lives_ok($$select public.void_study_session((select id from target), '  timer left running  ')$$,
  'an admin account voids a session');
reset role;
select is((select row(voided_by, void_reason, voided_at = now())::text from public.study_sessions
  where id = (select id from target)),
  row(tests.get_user_id('ada')::text, 'timer left running', true)::text,
  'the row records who (the admin''s id), why (trimmed) and when');
select is((select count(*)::int from public.study_sessions where user_id = tests.get_user_id('vic')), 4,
  'the session is kept, not deleted');
select tests.authenticate_as('ada');
select throws_ok($$select public.void_study_session((select id from target), 'again')$$,
  'P0059', 'already_voided', 'voiding it a second time is refused');
reset role;
select is((select void_reason from public.study_sessions where id = (select id from target)), 'timer left running',
  'and the first void stands');

select tests.authenticate_as('vic');
select is((select row(voided_at is not null, void_reason)::text from public.study_sessions
  where id = (select id from target)), row(true, 'timer left running')::text,
  'the student sees that her session was voided, and why');
select is((select count(*)::int from public.daily_user_stats where study_day = (select today from d) - 2), 0,
  'the voided session''s day, left without sessions, has no daily row');
select is((select row(total_minutes, total_sessions, total_correct, current_streak_days, longest_streak_days,
    last_study_day)::text from public.user_stats_summary where user_id = auth.uid()),
  row(90, 3, 7, 1, 1, (select today from d) - 1)::text,
  'her totals drop it and her streak breaks at the voided day');

select tests.authenticate_as('wes');
select is((select total_minutes + total_correct from public.user_stats_summary
  where user_id = tests.get_user_id('vic')), 97, 'another student''s leaderboard read of her summary drops it');
select is((select sum(minutes)::int from public.daily_user_stats where user_id = tests.get_user_id('vic')), 90,
  'and of her daily stats');
select is((select points from public.get_group_leaderboard((select id from public.groups where name = 'Void Hall'))
  where user_id = tests.get_user_id('vic')), 97::bigint, 'and the group leaderboard');
select is((select total_minutes from public.get_group_analytics_from_snapshots(
    (select id from public.groups where name = 'Void Hall')) where study_day = (select today from d) - 2), 0::bigint,
  'and group analytics have nothing on the voided day');

-- A voided session does not block an honest re-record -------------------------------------------

select tests.authenticate_as('vic');
select lives_ok($$select public.record_study_session((select at2 from d), 45, 's1', 'Maths',
    null, null, 10, 0, 0)$$, 'the same time span can be recorded again');
select is((select row(total_minutes, total_sessions, current_streak_days, longest_streak_days)::text
  from public.user_stats_summary where user_id = auth.uid()), row(135, 4, 1, 1)::text,
  'and counts again (a late older session leaves the running streak, as record_study_session always did)');
select throws_ok($$select public.record_study_session((select at2 from d) + interval '10 minutes', 20)$$,
  'P0054', 'session_overlaps', 'a session overlapping the re-recorded one is still refused');

-- The service role voids for the console, naming its admin --------------------------------------

select tests.authenticate_as_service_role();
select lives_ok($$select public.void_study_session(
    (select id from public.study_sessions where user_id = tests.get_user_id('vic')
       and started_at = (select at1b from d)),
    'a test session', 'user:00000000-0000-4000-8000-00000000000a:lead@example.test')$$,
  'the service role voids a session');
select is((select voided_by from public.study_sessions where user_id = tests.get_user_id('vic')
    and started_at = (select at1b from d)),
  'user:00000000-0000-4000-8000-00000000000a:lead@example.test', 'recording the console''s admin as the voider');
select is((select row(minutes, sessions, correct)::text from public.daily_user_stats
  where user_id = tests.get_user_id('vic') and study_day = (select today from d) - 1), row(30, 1, 2)::text,
  'a day that keeps other sessions keeps its row, recomputed');
select is((select row(total_minutes, total_sessions, total_correct, current_streak_days, longest_streak_days)::text
  from public.user_stats_summary where user_id = tests.get_user_id('vic')), row(115, 3, 17, 3, 3)::text,
  'and the recompute counts every remaining day, the re-recorded one included, in the streaks');
select lives_ok($$select public.void_study_session(
    (select id from public.study_sessions where user_id = tests.get_user_id('vic')
       and started_at = (select at3 from d)), 'another test')$$,
  'without a name the service role still voids');
select is((select voided_by from public.study_sessions where user_id = tests.get_user_id('vic')
    and started_at = (select at3 from d)), 'service_role',
  'and is recorded as the service role');
select is((select row(total_minutes, current_streak_days, longest_streak_days)::text
  from public.user_stats_summary where user_id = tests.get_user_id('vic')), row(75, 2, 2)::text,
  'voiding the first day of a run shortens both streaks');

-- The buddy overview's subject breakdown drops it too ----------------------------------------------

reset role;
insert into public.community_friends (user_id, friend_id, status)
  values (tests.get_user_id('vic'), tests.get_user_id('wes'), 'accepted');
update public.community_enrollments set privacy = privacy || '{"shareSubjectBreakdown": true}'
  where user_id = tests.get_user_id('vic');
-- Her local time is kept six hours from midnight, so a session 40 minutes ago falls on her today.
update public.user_settings
  set timezone_offset_minutes = case when extract(hour from now() at time zone 'UTC') < 12 then 360 else -360 end
  where user_id = tests.get_user_id('vic');
select tests.authenticate_as('vic');
select public.record_study_session(now() - interval '40 minutes', 25, 'bio', 'Biology');
select tests.authenticate_as('wes');
select is((select e -> 'subjects' -> 0 ->> 'name' from jsonb_array_elements(public.community_get_overview()) e
  where e ->> 'userId' = tests.get_user_id('vic')::text), 'Biology', 'her buddy sees today''s subject');
select tests.authenticate_as_service_role();
select public.void_study_session((select id from public.study_sessions where subject_id = 'bio'), 'not studied');
select tests.authenticate_as('wes');
select is((select jsonb_array_length(e -> 'subjects') from jsonb_array_elements(public.community_get_overview()) e
  where e ->> 'userId' = tests.get_user_id('vic')::text), 0, 'and not once it is voided');

-- Sending a voided session again does not undo the void ------------------------------------------

select tests.authenticate_as('vic');
create temporary table retried on commit drop as
  select public.record_study_session(now() - interval '3 hours', 30, null, null, null, null, 0, 0, 0,
    'd0000000-0000-4000-8000-000000000001') as id;
grant select on retried to public;
select tests.authenticate_as_service_role();
select public.void_study_session((select id from retried), 'sent twice by mistake');
select tests.authenticate_as('vic');
create temporary table before_retry on commit drop as
  select total_minutes, total_sessions from public.user_stats_summary where user_id = auth.uid();
select is(public.record_study_session(now() - interval '3 hours', 30, null, null, null, null, 0, 0, 0,
    'd0000000-0000-4000-8000-000000000001'), (select id from retried),
  'a retry with a voided session''s client id returns its id');
select is((select row(total_minutes, total_sessions)::text from public.user_stats_summary where user_id = auth.uid()),
  (select row(total_minutes, total_sessions)::text from before_retry), 'and the session stays voided, counted nowhere');

-- Every writer's void is recomputed: the service role's own SQL ---------------------------------

select tests.authenticate_as_service_role();
create temporary table before_sql on commit drop as
  select total_minutes from public.user_stats_summary where user_id = tests.get_user_id('vic');
grant select on before_sql to public;
select throws_ok($$update public.study_sessions set voided_at = now()
    where user_id = tests.get_user_id('vic') and started_at = (select at1 from d)$$,
  '23514', null, 'a void written directly still needs who and why');
update public.study_sessions set voided_at = now(), voided_by = 'sql editor', void_reason = 'direct'
  where user_id = tests.get_user_id('vic') and started_at = (select at1 from d);
select is((select total_minutes from public.user_stats_summary where user_id = tests.get_user_id('vic')),
  (select total_minutes - 30 from before_sql), 'a void written directly is taken out of her totals at once');
update public.study_sessions set voided_at = null, voided_by = null, void_reason = null
  where user_id = tests.get_user_id('vic') and started_at = (select at1 from d);
select is((select total_minutes from public.user_stats_summary where user_id = tests.get_user_id('vic')),
  (select total_minutes from before_sql), 'and one cleared directly counts again');

-- Admin rights are the admin's own ---------------------------------------------------------------

reset role;
delete from public.user_roles where user_id = tests.get_user_id('ada');
select tests.authenticate_as('ada');
select throws_ok($$select public.void_study_session(
    (select id from public.study_sessions where user_id = tests.get_user_id('vic') and voided_at is null limit 1),
    'no longer admin')$$, 'P0092', 'not_admin', 'an account whose admin row is gone can no longer void');

select * from finish();
rollback;

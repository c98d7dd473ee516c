-- Leaderboards follow the privacy switches (docs/database.md#leaderboards-and-privacy): another
-- student's statistics, through the two read policies, the group leaderboard and group analytics,
-- are there only while she shares both study time and question counts and is not in stealth mode.
begin;
select plan(19);

select tests.create_user('see');    -- the reader, on the default switches
select tests.create_user('both');   -- shares time and question counts
select tests.create_user('dflt');   -- the default: time shared, question counts not
select tests.create_user('qonly');  -- question counts shared, time not
select tests.create_user('stl');    -- shares both, in stealth mode
select tests.create_user('none');   -- stealth mode on, every share switch off

update public.community_enrollments set privacy = case user_id
    when tests.get_user_id('both') then privacy || '{"shareQuestionCounts": true}'
    when tests.get_user_id('qonly') then privacy || '{"shareQuestionCounts": true, "shareExactTime": false}'
    when tests.get_user_id('stl') then privacy || '{"shareQuestionCounts": true, "stealthMode": true}'
    when tests.get_user_id('none') then privacy || '{"stealthMode": true, "shareExactTime": false}'
    else privacy end;
insert into public.daily_user_stats (user_id, study_day, minutes, sessions, correct)
  select u.id, current_date, 10 * n, 1, n
  from unnest(array['see', 'both', 'dflt', 'qonly', 'stl', 'none']) with ordinality as t(name, n)
  cross join lateral (select tests.get_user_id(t.name) as id) u;
update public.user_stats_summary set total_minutes = 100, total_correct = 7;

-- What a student reads of someone else's statistics through the two policies.
create function pg_temp.visible(p_name text) returns text language sql as $$
  select (select count(*) from public.user_stats_summary where user_id = tests.get_user_id(p_name))
    || '/' || (select count(*) from public.daily_user_stats where user_id = tests.get_user_id(p_name))
$$;

-- The read policies, one student per combination of switches -------------------------------------
select tests.authenticate_as('see');
select is(pg_temp.visible('both'), '1/1', 'a student who shares time and question counts is on the leaderboards');
select is(pg_temp.visible('dflt'), '0/0', 'the default switches (question counts private) keep her off them');
select is(pg_temp.visible('qonly'), '0/0', 'question counts without time keep her off them');
select is(pg_temp.visible('stl'), '0/0', 'stealth mode keeps her off them whatever she shares');
select is(pg_temp.visible('none'), '0/0', 'stealth with every switch off: nothing, today or all-time');
select is((select count(*)::int from public.daily_user_stats where study_day = current_date), 2,
  'a table-wide read of today sees only the sharer and the reader''s own row');
select is((select coalesce(sum(minutes), 0)::int from public.daily_user_stats where user_id <> auth.uid()), 20,
  'and its minutes are the sharer''s alone');

select tests.authenticate_as('none');
select is(pg_temp.visible('none'), '1/1', 'a hidden student still reads her own statistics');

-- A switch takes effect at once ---------------------------------------------------------------------
select tests.authenticate_as('both');
update public.community_enrollments set privacy = privacy || '{"stealthMode": true}';
select tests.authenticate_as('see');
select is(pg_temp.visible('both'), '0/0', 'turning stealth on takes the sharer off the leaderboards');
select tests.authenticate_as('both');
update public.community_enrollments set privacy = privacy || '{"stealthMode": false, "shareExactTime": false}';
select tests.authenticate_as('see');
select is(pg_temp.visible('both'), '0/0', 'so does turning time sharing off');
select tests.authenticate_as('both');
update public.community_enrollments set privacy = privacy || '{"shareExactTime": true}';
select tests.authenticate_as('see');
select is(pg_temp.visible('both'), '1/1', 'and sharing both again puts her back');

-- Signed out: nothing ------------------------------------------------------------------------------
select tests.clear_authentication();
select throws_ok('select * from public.user_stats_summary', '42501', null, 'anon reads no summaries');
select throws_ok('select * from public.daily_user_stats', '42501', null, 'anon reads no daily stats');

-- The group leaderboard and analytics apply the same rule ----------------------------------------
select tests.authenticate_as('see');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Privacy Hall', 'private', 'invite', tests.get_user_id('see'));
reset role;
create temp table hall as select id from public.groups where name = 'Privacy Hall';
grant select on hall to public;
insert into public.group_members (group_id, user_id)
  select (select id from hall), tests.get_user_id(name) from unnest(array['both', 'dflt', 'qonly', 'stl', 'none']) name;

select tests.authenticate_as('see');
select results_eq(
  $$select rank, user_id, points from public.get_group_leaderboard((select id from hall), 10)$$,
  $$values (1::bigint, tests.get_user_id('both'), 22::bigint), (2::bigint, tests.get_user_id('see'), 11::bigint)$$,
  'the group leaderboard shows the sharer and the reader herself, ranked without gaps');
select is((select total_minutes from public.get_group_analytics_from_snapshots((select id from hall), 1) where study_day = current_date),
  30::bigint, 'analytics add up only the sharer''s and the reader''s own minutes');
select is((select active_members from public.get_group_analytics_from_snapshots((select id from hall), 1) where study_day = current_date),
  2::bigint, 'and count only them as active');

select tests.authenticate_as('none');
select results_eq(
  $$select user_id, points from public.get_group_leaderboard((select id from hall), 10)$$,
  $$values (tests.get_user_id('none'), 66::bigint), (tests.get_user_id('both'), 22::bigint)$$,
  'a hidden member sees herself and the sharer; the reader on default switches is not on her board');
select is((select total_minutes from public.get_group_analytics_from_snapshots((select id from hall), 1) where study_day = current_date),
  80::bigint, 'her analytics count her own minutes and the sharer''s');

select tests.authenticate_as('both');
select is((select count(*)::int from public.get_group_leaderboard((select id from hall), 10)), 1,
  'the sharer''s board holds only herself: nobody else in the group shares');

select * from finish();
rollback;

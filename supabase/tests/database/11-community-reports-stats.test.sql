-- Reports (reporter and service_role only), the group leaderboard and analytics (members only),
-- and group-icons objects (owners write, everyone reads).
begin;
select plan(14);

select tests.create_user('owner');
select tests.create_user('member');
select tests.create_user('outsider');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Stats Group', 'private', 'open', tests.get_user_id('owner'));

select tests.authenticate_as_service_role();
create temp table sg as select id from public.groups where name = 'Stats Group';
grant select on sg to public;
insert into public.group_members (group_id, user_id) select id, tests.get_user_id('member') from sg;
insert into public.daily_user_stats (user_id, study_day, minutes, sessions, correct) values
  (tests.get_user_id('owner'), current_date, 30, 1, 5),
  (tests.get_user_id('member'), current_date, 40, 1, 10),
  (tests.get_user_id('member'), current_date - 1, 20, 1, 0),
  (tests.get_user_id('outsider'), current_date, 500, 3, 0);
-- Everyone here shares study time and question counts; what the switches hide is proven in
-- 42-leaderboard-privacy.test.sql.
update public.community_enrollments set privacy = privacy || '{"shareQuestionCounts": true}';

-- Leaderboard and analytics.
select tests.authenticate_as('member');
select results_eq(
  $$select user_id, points from public.get_group_leaderboard((select id from sg), 10)$$,
  $$values (tests.get_user_id('member'), 70::bigint), (tests.get_user_id('owner'), 35::bigint)$$,
  'members are ranked by minutes + correct answers, outsiders excluded');
select is((select total_minutes from public.get_group_analytics_from_snapshots((select id from sg), 7) where study_day = current_date),
  70::bigint, 'analytics sums the members'' minutes per day');
select is((select active_members from public.get_group_analytics_from_snapshots((select id from sg), 7) where study_day = current_date),
  2::bigint, 'analytics counts active members per day');
select is((select count(*)::int from public.get_group_analytics_from_snapshots((select id from sg), 7)), 7, 'one row per day of the period');

select tests.authenticate_as('outsider');
select throws_ok($$select * from public.get_group_leaderboard((select id from sg), 10)$$, 'P0001', 'not_group_member',
  'a non-member cannot read a group''s leaderboard');
select throws_ok($$select * from public.get_group_analytics_from_snapshots((select id from sg), 7)$$, 'P0001', 'not_group_member',
  'a non-member cannot read a group''s analytics');

-- Reports.
select lives_ok($$select public.community_submit_report('group', (select id from sg), 'spam')$$, 'a student reports a group');
select throws_ok($$select public.community_submit_report('planet', (select id from sg), 'spam')$$, 'P0004', 'invalid_target',
  'an unknown target type is refused');
select is((select count(*)::int from public.community_reports), 1, 'the reporter reads their own report');
select throws_ok($$insert into public.community_reports (reporter_id, target_type, target_id, reason)
  values (tests.get_user_id('outsider'), 'user', tests.get_user_id('owner'), 'x')$$, '42501', null, 'reports cannot be inserted directly');
select tests.authenticate_as('member');
select is((select count(*)::int from public.community_reports), 0, 'another student cannot read the report');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.community_reports), 1, 'service_role reads every report');

-- Group icons.
select tests.authenticate_as('member');
select throws_ok(format($$insert into storage.objects (bucket_id, name, owner) values ('group-icons', '%s/icon.png', auth.uid())$$,
  (select id from sg)), '42501', null, 'a member cannot upload the group icon');
select tests.authenticate_as('owner');
select lives_ok(format($$insert into storage.objects (bucket_id, name, owner) values ('group-icons', '%s/icon.png', auth.uid())$$,
  (select id from sg)), 'an owner uploads the group icon');

select * from finish();
rollback;

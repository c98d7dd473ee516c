-- Owner-only access to every base table: alice sees and edits her own rows; bob (another user)
-- and anon (signed out) can neither read nor change them, even knowing her id. The one exception is
-- the statistics pair, which signed-in readers see for leaderboards only while alice shares them
-- (never anon; docs/database.md#leaderboards-and-privacy).
begin;
select plan(45);

select tests.create_user('alice');
select tests.create_user('bob');

insert into public.daily_user_stats (user_id, study_day, minutes, sessions)
  values (tests.get_user_id('alice'), date '2026-11-20', 50, 2);
insert into public.study_sessions (user_id, subject_name, minutes, started_at, ended_at, study_day)
  values (tests.get_user_id('alice'), 'Biology', 25, now() - interval '25 minutes', now(), current_date);
insert into public.user_tasks (user_id, title) values (tests.get_user_id('alice'), 'Read chapter 3');
insert into public.user_backups (user_id, payload) values (tests.get_user_id('alice'), '{"tasks": [1, 2]}');
insert into public.user_roles (user_id, role) values (tests.get_user_id('alice'), 'admin');

-- alice, the owner --------------------------------------------------------------------------------
select tests.authenticate_as('alice');
select is((select count(*)::int from public.users), 1, 'alice reads exactly her own users row');
select is((select count(*)::int from public.user_profiles), 1, 'alice reads her profile');
select is((select count(*)::int from public.user_settings), 1, 'alice reads her settings');
select is((select count(*)::int from public.user_roles), 1, 'alice reads her roles');
select is((select count(*)::int from public.user_stats_summary where user_id = auth.uid()), 1, 'alice reads her stats summary');
select is((select count(*)::int from public.daily_user_stats where user_id = auth.uid()), 1, 'alice reads her daily stats');
select is((select count(*)::int from public.study_sessions), 1, 'alice reads her sessions');
select is((select count(*)::int from public.user_tasks), 1, 'alice reads her tasks');
select is((select count(*)::int from public.user_backups), 1, 'alice reads her backups');

update public.user_profiles set display_name = 'Alice A.';
select is((select display_name from public.user_profiles), 'Alice A.', 'alice edits her profile');
update public.user_settings set day_offset_hours = 4;
select is((select day_offset_hours::int from public.user_settings), 4, 'alice edits her settings');
select lives_ok($$insert into public.user_tasks (user_id, title) values (auth.uid(), 'Flashcards')$$,
  'alice adds a task of her own');
select lives_ok($$insert into public.user_backups (user_id, payload) values (auth.uid(), '{"sessions": []}')$$,
  'alice stores a backup of her own');
select throws_ok($$update public.user_backups set payload = '{}'$$, '42501', null,
  'a backup cannot be rewritten, not even by its owner');
select throws_ok($$update public.user_stats_summary set total_minutes = 100000$$, '42501', null,
  'alice cannot inflate her own statistics directly');
select throws_ok($$insert into public.daily_user_stats (user_id, study_day, minutes) values (auth.uid(), current_date, 600)$$,
  '42501', null, 'alice cannot write daily statistics directly');
select throws_ok($$insert into public.user_roles (user_id, role) values (auth.uid(), 'super_admin')$$,
  '42501', null, 'alice cannot grant herself a role');
select throws_ok($$delete from public.users$$, '42501', null, 'alice cannot delete her users row directly');

-- bob, another user -----------------------------------------------------------------------------
select tests.authenticate_as('bob');
select is((select count(*)::int from public.users where id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s users row');
select is((select count(*)::int from public.user_profiles where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s profile');
select is((select count(*)::int from public.user_settings where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s settings');
select is((select count(*)::int from public.user_roles where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s roles');
select is((select count(*)::int from public.user_stats_summary where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s summary: by default she does not share question counts');
select is((select count(*)::int from public.daily_user_stats where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s daily stats either');
select is((select count(*)::int from public.study_sessions where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s sessions');
select is((select count(*)::int from public.user_tasks where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s tasks');
select is((select count(*)::int from public.user_backups where user_id = tests.get_user_id('alice')), 0, 'bob cannot read alice''s backups');

select lives_ok($$update public.user_profiles set display_name = 'hacked' where user_id = tests.get_user_id('alice')$$,
  'bob''s update of alice''s profile runs ...');
select throws_ok($$update public.users set username = 'hacked' where id = tests.get_user_id('alice')$$,
  '42501', null, 'bob cannot rename alice (nobody but the database renames a users row)');
select lives_ok($$update public.user_tasks set done = true where user_id = tests.get_user_id('alice')$$,
  'bob''s update of alice''s tasks runs ...');
select lives_ok($$delete from public.user_backups where user_id = tests.get_user_id('alice')$$,
  'bob''s delete of alice''s backups runs ...');
select throws_ok($$insert into public.user_tasks (user_id, title) values (tests.get_user_id('alice'), 'spam')$$,
  '42501', null, 'bob cannot add a task to alice''s list');
select throws_ok($$insert into public.user_backups (user_id, payload) values (tests.get_user_id('alice'), '{}')$$,
  '42501', null, 'bob cannot plant a backup for alice');
select throws_ok($$update public.user_profiles set user_id = tests.get_user_id('alice')$$,
  '42501', null, 'bob cannot move his profile onto alice''s id');

select tests.authenticate_as_service_role();
select is((select display_name from public.user_profiles where user_id = tests.get_user_id('alice')), 'Alice A.',
  '... and alice''s profile is unchanged');
select is((select username from public.users where id = tests.get_user_id('alice')), 'alice@test.local',
  '... and alice''s username is unchanged');
select is((select count(*)::int from public.user_tasks where user_id = tests.get_user_id('alice') and done), 0,
  '... and alice''s tasks are unchanged');
select is((select count(*)::int from public.user_backups where user_id = tests.get_user_id('alice')), 2,
  '... and alice''s backups are all still there');

-- anon, signed out --------------------------------------------------------------------------------
select tests.clear_authentication();
select throws_ok('select * from public.users', '42501', null, 'anon cannot read users');
select throws_ok('select * from public.user_profiles', '42501', null, 'anon cannot read profiles');
select throws_ok('select * from public.user_settings', '42501', null, 'anon cannot read settings');
select throws_ok('select * from public.user_tasks', '42501', null, 'anon cannot read tasks');
select throws_ok('select * from public.user_backups', '42501', null, 'anon cannot read backups');
select throws_ok('select * from public.daily_user_stats', '42501', null, 'anon cannot read daily stats');
select throws_ok($$insert into public.user_tasks (user_id, title) values (tests.get_user_id('alice'), 'x')$$,
  '42501', null, 'anon cannot write tasks');

select * from finish();
rollback;

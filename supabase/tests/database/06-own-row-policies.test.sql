-- Each own-row write policy on the base tables, granted and denied: alice (the owner) edits and
-- deletes her tasks, deletes her backups and creates her profile and settings, but cannot rename
-- her users row (the account e-mail changes through auth only);
-- bob (another student) and anon change nothing of hers. Bob's writes carry no WHERE clause, as a
-- client sending an unfiltered PATCH or DELETE with return=minimal would: PostgreSQL then checks
-- each row against the UPDATE or DELETE policy alone, with no SELECT policy to hide alice's rows.
begin;
select plan(36);

select tests.create_user('alice');
select tests.create_user('bob');

insert into public.user_tasks (user_id, title) values
  (tests.get_user_id('alice'), 'Read chapter 3'),
  (tests.get_user_id('bob'), 'Bob''s flashcards');
insert into public.user_backups (user_id, payload) values
  (tests.get_user_id('alice'), '{"tasks": [1, 2]}'),
  (tests.get_user_id('bob'), '{"tasks": [3]}');
-- alice's profile and settings are created by her own inserts below.
delete from public.user_profiles where user_id = tests.get_user_id('alice');
delete from public.user_settings where user_id = tests.get_user_id('alice');

-- bob, another student: creating rows in alice's name -----------------------------------------
select tests.authenticate_as('bob');
select throws_ok(format('insert into public.user_profiles (user_id, display_name) values (%L, %L)', tests.get_user_id('alice'), 'Fake Alice'),
  '42501', null, 'bob cannot create a profile for alice');
select throws_ok(format('insert into public.user_settings (user_id, day_offset_hours) values (%L, 9)', tests.get_user_id('alice')),
  '42501', null, 'bob cannot create settings for alice');

-- alice, the owner: creating and changing her own rows ----------------------------------------
select tests.authenticate_as('alice');
select lives_ok($$insert into public.user_profiles (user_id, display_name) values (auth.uid(), 'Alice')$$,
  'alice creates her own profile');
select lives_ok($$insert into public.user_settings (user_id, day_offset_hours) values (auth.uid(), 4)$$,
  'alice creates her own settings');
select throws_ok($$update public.users set username = 'alice.renamed'$$, '42501', null,
  'alice cannot rename herself: users.username is the account e-mail');
select lives_ok($$update public.user_settings set timezone_offset_minutes = 60$$, 'alice edits her settings with an unfiltered update');
select lives_ok($$update public.user_tasks set done = true$$, 'alice ticks off her tasks with an unfiltered update');

select tests.authenticate_as_service_role();
select is((select username from public.users where id = tests.get_user_id('alice')), 'alice@test.local',
  '... and her username is still her e-mail');
select is((select timezone_offset_minutes::int from public.user_settings where user_id = tests.get_user_id('alice')), 60,
  '... and her settings are changed');
select is((select done from public.user_tasks where user_id = tests.get_user_id('alice')), true,
  '... and her task is done');
select is((select done from public.user_tasks where user_id = tests.get_user_id('bob')), false,
  '... while bob''s task is untouched by alice''s unfiltered update');

-- bob's unfiltered writes touch only his own rows ------------------------------------------------
select tests.authenticate_as('bob');
select throws_ok($$update public.users set username = 'bob.renamed'$$, '42501', null, 'bob''s unfiltered rename is refused');
select lives_ok($$update public.user_profiles set display_name = 'hacked'$$, 'bob''s unfiltered profile update runs ...');
select lives_ok($$update public.user_settings set day_offset_hours = 9$$, 'bob''s unfiltered settings update runs ...');
select lives_ok($$update public.user_tasks set title = 'hijacked', done = false$$, 'bob''s unfiltered task update runs ...');
select lives_ok($$delete from public.user_tasks$$, 'bob''s unfiltered task delete runs ...');
select lives_ok($$delete from public.user_backups$$, 'bob''s unfiltered backup delete runs ...');

select tests.authenticate_as_service_role();
select is((select username from public.users where id = tests.get_user_id('alice')), 'alice@test.local',
  '... and alice''s username is unchanged');
select is((select display_name from public.user_profiles where user_id = tests.get_user_id('alice')), 'Alice',
  '... and alice''s profile is unchanged');
select is((select day_offset_hours::int from public.user_settings where user_id = tests.get_user_id('alice')), 4,
  '... and alice''s settings are unchanged');
select is((select title || '/' || done from public.user_tasks where user_id = tests.get_user_id('alice')), 'Read chapter 3/true',
  '... and alice''s task is neither rewritten nor deleted');
select is((select count(*)::int from public.user_backups where user_id = tests.get_user_id('alice')), 1,
  '... and alice''s backup is still there');
select is((select username || '/' || (select count(*) from public.user_tasks t where t.user_id = u.id)
                           || '/' || (select count(*) from public.user_backups b where b.user_id = u.id)
           from public.users u where u.id = tests.get_user_id('bob')), 'bob@test.local/0/0',
  'while bob''s own tasks and backups were deleted, so the statements did run');

-- Moving his own row onto alice's id is refused by each WITH CHECK.
select tests.authenticate_as('bob');
select throws_ok(format('update public.users set id = %L', tests.get_user_id('alice')), '42501', null,
  'bob cannot move his users row onto alice''s id');
select throws_ok(format('update public.user_settings set user_id = %L', tests.get_user_id('alice')), '42501', null,
  'bob cannot move his settings onto alice''s id');
insert into public.user_tasks (user_id, title) values (auth.uid(), 'Bob again');
select throws_ok(format('update public.user_tasks set user_id = %L', tests.get_user_id('alice')), '42501', null,
  'bob cannot move his task onto alice''s list');

-- anon, signed out -------------------------------------------------------------------------------
select tests.clear_authentication();
select throws_ok($$update public.users set username = 'anon'$$, '42501', null, 'anon cannot rename anyone');
select throws_ok($$update public.user_settings set day_offset_hours = 1$$, '42501', null, 'anon cannot change settings');
select throws_ok($$update public.user_tasks set done = false$$, '42501', null, 'anon cannot change tasks');
select throws_ok($$delete from public.user_tasks$$, '42501', null, 'anon cannot delete tasks');
select throws_ok($$delete from public.user_backups$$, '42501', null, 'anon cannot delete backups');

-- alice deletes her own rows -------------------------------------------------------------------
select tests.authenticate_as('alice');
select lives_ok($$delete from public.user_tasks$$, 'alice deletes her tasks with an unfiltered delete');
select lives_ok($$delete from public.user_backups$$, 'alice deletes her backups with an unfiltered delete');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.user_tasks where user_id = tests.get_user_id('alice')), 0,
  '... and her tasks are gone');
select is((select count(*)::int from public.user_backups where user_id = tests.get_user_id('alice')), 0,
  '... and her backups are gone');
select is((select count(*)::int from public.user_tasks where user_id = tests.get_user_id('bob')), 1,
  '... while bob''s task survives alice''s unfiltered delete');

select * from finish();
rollback;

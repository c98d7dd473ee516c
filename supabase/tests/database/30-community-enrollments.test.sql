-- Enrollment, privacy validation and handles.
begin;
select plan(14);

select tests.create_user('erin');
select tests.create_user('fred');

select is((select count(*)::int from public.community_enrollments where user_id = tests.get_user_id('erin')), 1,
  'a new user is enrolled by the trigger on public.users');
select is((select privacy from public.community_enrollments where user_id = tests.get_user_id('erin')),
  '{"stealthMode": false, "shareTasks": false, "shareSubjectBreakdown": false, "shareQuestionCounts": false,
    "shareExactTime": true, "shareCurrentSubject": false}'::jsonb,
  'only shareExactTime starts true');

select tests.authenticate_as('erin');
select ok(public.community_is_enrolled(), 'community_is_enrolled() is true for the caller');
select lives_ok($$update public.community_enrollments set privacy = privacy || '{"shareTasks": true}'
  where user_id = tests.get_user_id('erin')$$, 'a user changes their own switches');
select throws_ok($$update public.community_enrollments set privacy = privacy || '{"shareEverything": true}'
  where user_id = tests.get_user_id('erin')$$, 'P0012', 'invalid_privacy', 'an unknown key is refused');
select throws_ok($$update public.community_enrollments set privacy = privacy || '{"shareTasks": "yes"}'
  where user_id = tests.get_user_id('erin')$$, 'P0012', 'invalid_privacy', 'a non-boolean value is refused');
update public.community_enrollments set consent = true where user_id = tests.get_user_id('fred');
select tests.authenticate_as_service_role();
select is((select consent from public.community_enrollments where user_id = tests.get_user_id('fred')), false,
  'a user cannot change someone else''s enrollment');

select tests.authenticate_as('erin');
select is(public.community_bootstrap_profile('Erin.K') ->> 'handle', 'Erin.K', 'a valid handle is set');
select is((select handle || '|' || (profile_data ->> 'community_handle') from public.user_profiles
  where user_id = tests.get_user_id('erin')), 'Erin.K|Erin.K', 'the handle goes to the column and profile_data');
select lives_ok($$select public.community_bootstrap_profile('Erin.K')$$, 'setting the same handle again is idempotent');
select throws_ok($$select public.community_bootstrap_profile('ab')$$, 'P0010', 'invalid_handle', 'too short is refused');
select throws_ok($$select public.community_bootstrap_profile('bad-handle!')$$, 'P0010', 'invalid_handle',
  'characters outside letters, digits, _ and . are refused');
select tests.authenticate_as('fred');
select throws_ok($$select public.community_bootstrap_profile('erin.k')$$, 'P0011', 'handle_taken',
  'a handle taken in another case raises handle_taken');
select tests.clear_authentication();
select throws_ok('select public.community_is_enrolled()', '42501', null, 'anon cannot call community_is_enrolled()');

select * from finish();
rollback;

-- Account bootstrap: rows appear with the auth user; app_bootstrap_user() repairs and is idempotent.
begin;
select plan(12);

select tests.create_user('carol');

select is((select count(*)::int from public.users where id = tests.get_user_id('carol')), 1,
  'creating an auth user creates the public.users row');
select is((select username from public.users where id = tests.get_user_id('carol')), 'carol@test.local',
  'the username defaults to the e-mail address');
select is((select count(*)::int from public.user_profiles where user_id = tests.get_user_id('carol')), 1,
  'and the profile row');
select is((select count(*)::int from public.user_settings where user_id = tests.get_user_id('carol')), 1,
  'and the settings row');
select is((select count(*)::int from public.user_stats_summary where user_id = tests.get_user_id('carol')), 1,
  'and the stats summary row');

-- A satellite row lost (an older account, a manual repair) is recreated on demand.
delete from public.user_settings where user_id = tests.get_user_id('carol');
delete from public.user_stats_summary where user_id = tests.get_user_id('carol');

select tests.authenticate_as('carol');
select is(public.app_bootstrap_user() -> 'created', '["user_settings", "user_stats_summary"]'::jsonb,
  'app_bootstrap_user() creates exactly the missing rows and names them');
select is(public.app_bootstrap_user() -> 'created', '[]'::jsonb,
  'a second call creates nothing');
select is(public.app_bootstrap_user() ->> 'user_id', tests.get_user_id('carol')::text,
  'it answers for the caller');
select is((select count(*)::int from public.user_settings), 1, 'no duplicate settings row appears');

select tests.clear_authentication();
select throws_ok('select public.app_bootstrap_user()', '42501', null,
  'anon cannot call app_bootstrap_user()');

-- A chosen username is kept when free and falls back to the e-mail when taken.
reset role;
insert into auth.users (id, email, raw_user_meta_data)
  values ('10000000-0000-4000-8000-000000000001', 'dave@test.local', '{"username": "Dave"}');
select is((select username from public.users where id = '10000000-0000-4000-8000-000000000001'), 'Dave',
  'a free chosen username is kept');
insert into auth.users (id, email, raw_user_meta_data)
  values ('10000000-0000-4000-8000-000000000002', 'dave2@test.local', '{"username": "dave"}');
select is((select username from public.users where id = '10000000-0000-4000-8000-000000000002'), 'dave2@test.local',
  'a taken username (case-insensitively) falls back to the e-mail');

select * from finish();
rollback;

-- The handle rule holds on every write path, not only in community_bootstrap_profile: a direct
-- insert or update of user_profiles, by the student or the service role, is refused with the RPC's
-- own codes just past each edge of the rule, and profile_data.community_handle mirrors the column.
begin;
select plan(32);

select tests.create_user('hana');
select tests.create_user('ivo');
select tests.create_user('new');
select tests.authenticate_as('ivo');
select public.community_bootstrap_profile('ivo_h');

-- The edges of the pattern, through a direct update of the student's own row --------------------
select tests.authenticate_as('hana');
select lives_ok($$update public.user_profiles set handle = 'abc' where user_id = auth.uid()$$,
  'three characters are a handle');
select throws_ok($$update public.user_profiles set handle = 'ab' where user_id = auth.uid()$$,
  'P0010', 'invalid_handle', 'two characters are not');
select lives_ok(format('update public.user_profiles set handle = %L where user_id = auth.uid()', repeat('h', 24)),
  'twenty-four characters are a handle');
select throws_ok(format('update public.user_profiles set handle = %L where user_id = auth.uid()', repeat('h', 25)),
  'P0010', 'invalid_handle', 'twenty-five characters are not');
select throws_ok(format('update public.user_profiles set handle = %L where user_id = auth.uid()', repeat('h', 5000)),
  'P0010', 'invalid_handle', 'five thousand characters are not');
select lives_ok($$update public.user_profiles set handle = 'Hana.K_2' where user_id = auth.uid()$$,
  'letters, digits, a dot and an underscore are a handle');
select throws_ok($$update public.user_profiles set handle = '<img src=x onerror=alert(1)>' where user_id = auth.uid()$$,
  'P0010', 'invalid_handle', 'markup is not');
select throws_ok($$update public.user_profiles set handle = 'ivo@test.local' where user_id = auth.uid()$$,
  'P0010', 'invalid_handle', 'an e-mail address is not: a handle never holds an @');
select throws_ok($$update public.user_profiles set handle = 'hana@x' where user_id = auth.uid()$$,
  'P0010', 'invalid_handle', 'nor does a short one');
select throws_ok($$update public.user_profiles set handle = ' hana_k' where user_id = auth.uid()$$,
  'P0010', 'invalid_handle', 'a space is not part of a handle');
select throws_ok($$update public.user_profiles set handle = 'IVO_H' where user_id = auth.uid()$$,
  'P0011', 'handle_taken', 'another student''s handle in another case is taken');
select is((select handle from public.user_profiles where user_id = auth.uid()), 'Hana.K_2',
  'every refused write left the handle as it was');

-- profile_data.community_handle is the column's mirror, whatever the writer sends -----------------
select lives_ok($$update public.user_profiles set profile_data = '{"community_handle": "ivo@test.local", "theme": "dark"}'
                  where user_id = auth.uid()$$, 'a profile_data write naming another handle runs ...');
select is((select profile_data from public.user_profiles where user_id = auth.uid()),
  '{"community_handle": "Hana.K_2", "theme": "dark"}'::jsonb, '... and community_handle still mirrors the handle');
select lives_ok($$update public.user_profiles set profile_data = '{}' where user_id = auth.uid()$$,
  'a profile_data write without the key runs ...');
select is((select profile_data ->> 'community_handle' from public.user_profiles where user_id = auth.uid()), 'Hana.K_2',
  '... and the mirror is put back');
select lives_ok($$update public.user_profiles set handle = null where user_id = auth.uid()$$, 'clearing the handle runs ...');
select is((select profile_data ? 'community_handle' from public.user_profiles where user_id = auth.uid()), false,
  '... and the mirror goes with it');
select lives_ok($$update public.user_profiles set display_name = 'Hana' where user_id = auth.uid()$$,
  'an unrelated write with no handle runs');

-- An older client that writes the handle only into profile_data: it becomes the handle when it is
-- a valid, free one, and is dropped (never an error) when it is not.
select lives_ok($$update public.user_profiles set profile_data = '{"community_handle": "hana_legacy"}' where user_id = auth.uid()$$,
  'a profile_data handle from an older client runs ...');
select is((select handle from public.user_profiles where user_id = auth.uid()), 'hana_legacy',
  '... and becomes the handle');
update public.user_profiles set handle = null where user_id = auth.uid();
select lives_ok($$update public.user_profiles set profile_data = '{"community_handle": "<b>x</b>"}' where user_id = auth.uid()$$,
  'an invalid profile_data handle runs ...');
select is((select row(handle, profile_data)::text from public.user_profiles where user_id = auth.uid()), row(null::text, '{}'::jsonb)::text,
  '... and is dropped, not stored');
select lives_ok($$update public.user_profiles set profile_data = '{"community_handle": "ivo_h"}' where user_id = auth.uid()$$,
  'a taken profile_data handle runs ...');
select is((select row(handle, profile_data)::text from public.user_profiles where user_id = auth.uid()), row(null::text, '{}'::jsonb)::text,
  '... and is dropped too');

-- The insert path: a student creating her own profile row ---------------------------------------
reset role;
delete from public.user_profiles where user_id = tests.get_user_id('new');
select tests.authenticate_as('new');
select throws_ok($$insert into public.user_profiles (user_id, handle) values (auth.uid(), 'new@test.local')$$,
  'P0010', 'invalid_handle', 'an insert with an e-mail as handle is refused');
select throws_ok($$insert into public.user_profiles (user_id, handle) values (auth.uid(), 'Ivo_H')$$,
  'P0011', 'handle_taken', 'an insert with a taken handle is refused');
select lives_ok($$insert into public.user_profiles (user_id, handle) values (auth.uid(), 'new_h')$$,
  'an insert with a valid handle is accepted');
select is((select profile_data from public.user_profiles where user_id = auth.uid()), '{"community_handle": "new_h"}'::jsonb,
  'and its profile_data carries the mirror');

-- The service role is held to the same rule, and so is the RPC ------------------------------------
select tests.authenticate_as_service_role();
select throws_ok(format('update public.user_profiles set handle = %L where user_id = %L', '<script>', tests.get_user_id('ivo')),
  'P0010', 'invalid_handle', 'the service role cannot store an invalid handle either');
select throws_ok(format('update public.user_profiles set handle = %L where user_id = %L', 'NEW_H', tests.get_user_id('ivo')),
  'P0011', 'handle_taken', 'nor a taken one');
select tests.authenticate_as('ivo');
select throws_ok($$select public.community_bootstrap_profile('new_h')$$, 'P0011', 'handle_taken',
  'the RPC refuses a handle taken through a direct insert');

select * from finish();
rollback;

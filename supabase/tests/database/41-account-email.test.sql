-- The account e-mail belongs to its account: a student changes nothing in public.users and only the
-- profile columns she edits; a chosen username is never an address, so nobody can make another
-- person's sign-up fail; and a buddy request to an e-mail reaches only the account that signs in with it.
begin;
select plan(25);

select tests.create_user('vic');
select tests.create_user('mal');
select tests.create_user('bea');

-- public.users: no column is the student's to write ---------------------------------------------
select tests.authenticate_as('mal');
select throws_ok(format('update public.users set username = %L where id = auth.uid()', 'vic2@test.local'),
  '42501', null, 'a student cannot set her username to another address');
select throws_ok($$update public.users set username = 'mal_renamed' where id = auth.uid()$$,
  '42501', null, 'nor to any other name');
select throws_ok($$update public.users set created_at = now() - interval '9 years' where id = auth.uid()$$,
  '42501', null, 'nor change when her account was created');
select throws_ok($$update public.users set updated_at = now() where id = auth.uid()$$,
  '42501', null, 'nor any other column of the row');
select is((select username from public.users where id = auth.uid()), 'mal@test.local', 'her username is still her e-mail');

-- user_profiles: the columns she edits, nothing else ----------------------------------------------
select lives_ok($$update public.user_profiles set display_name = 'Mal', avatar_url = '/__backend/storage/v1/object/public/avatars/x.png',
                  profile_data = '{"bio": "hi"}', handle = 'mal_h' where user_id = auth.uid()$$,
  'she edits her display name, avatar, profile data and handle');
select throws_ok($$update public.user_profiles set created_at = now() - interval '9 years' where user_id = auth.uid()$$,
  '42501', null, 'she cannot rewrite created_at');
select throws_ok($$update public.user_profiles set updated_at = now() + interval '1 year' where user_id = auth.uid()$$,
  '42501', null, 'nor updated_at');
select lives_ok($$update public.user_profiles set user_id = auth.uid() where user_id = auth.uid()$$,
  'she may name her own user_id, as an upsert does ...');
select throws_ok(format('update public.user_profiles set user_id = %L where user_id = auth.uid()', tests.get_user_id('vic')),
  '42501', null, '... but not move her profile to someone else');
select throws_ok($$insert into public.user_profiles (user_id, created_at) values (auth.uid(), now() - interval '9 years')$$,
  '42501', null, 'an insert naming created_at is refused');

-- The service role (the admin console) still manages accounts ----------------------------------
select tests.authenticate_as_service_role();
select lives_ok(format('update public.users set updated_at = now() where id = %L', tests.get_user_id('bea')),
  'the service role still writes users rows');

-- Sign-up: a chosen username with an @ is ignored, and a taken e-mail never fails the sign-up -----
reset role;
insert into auth.users (id, email, raw_user_meta_data)
  values ('41000000-0000-4000-8000-000000000001', 'squat@test.local', '{"username": "target@test.local"}');
select is((select username from public.users where id = '41000000-0000-4000-8000-000000000001'), 'squat@test.local',
  'a username chosen at sign-up that is an address falls back to the account''s own e-mail');
insert into auth.users (id, email, raw_user_meta_data)
  values ('41000000-0000-4000-8000-000000000002', 'target@test.local', '{}');
select is((select username from public.users where id = '41000000-0000-4000-8000-000000000002'), 'target@test.local',
  'so the owner of that address signs up and gets it');
insert into auth.users (id, email, raw_user_meta_data)
  values ('41000000-0000-4000-8000-000000000003', 'named@test.local', '{"username": "Named_One"}');
select is((select username from public.users where id = '41000000-0000-4000-8000-000000000003'), 'Named_One',
  'a username chosen at sign-up without an @ is kept');
-- A row that took an address before these rules (written around them): the e-mail's owner still signs up.
update public.users set username = 'late@test.local' where id = tests.get_user_id('bea');
select lives_ok($$insert into auth.users (id, email) values ('41000000-0000-4000-8000-000000000004', 'late@test.local')$$,
  'the sign-up of an address another row holds succeeds');
select is((select username from public.users where id = '41000000-0000-4000-8000-000000000004'),
  '41000000-0000-4000-8000-000000000004', 'with the account''s id as its username');

-- Buddy requests to an e-mail reach the account that signs in with it ---------------------------
-- Who a request sent as the caller reaches (read after the request, in a statement of its own).
create function pg_temp.request_reaches(p_to text) returns uuid language plpgsql as $$
declare
  v_id uuid := public.community_request_buddy(p_to);
begin
  return (select friend_id from public.community_friends where id = v_id);
end
$$;
-- bea's row still holds late@test.local as its username (above), and mal holds a handle.
select tests.authenticate_as('mal');
select is(pg_temp.request_reaches('late@test.local'),
  '41000000-0000-4000-8000-000000000004'::uuid, 'a request to an address reaches its owner, not a row that took it as a name');
select is(pg_temp.request_reaches('VIC@test.local'),
  tests.get_user_id('vic'), 'an address matches whatever its case');
select is(pg_temp.request_reaches('named@test.local'),
  '41000000-0000-4000-8000-000000000003'::uuid, 'an address reaches an account whose username is a chosen name');
select tests.authenticate_as('vic');
select is(pg_temp.request_reaches('named_one'),
  '41000000-0000-4000-8000-000000000003'::uuid, 'such a chosen name still finds its account ...');
select tests.authenticate_as('bea');
select is(pg_temp.request_reaches('mal_h'),
  tests.get_user_id('mal'), '... and a handle finds its account');
select throws_ok($$select public.community_request_buddy('nobody@test.local')$$, 'P0002', 'user_not_found',
  'an address nobody signs in with finds no one');
select throws_ok($$select public.community_request_buddy('mal_h@test.local')$$, 'P0002', 'user_not_found',
  'a handle followed by a domain finds no one');
select throws_ok($$select public.community_request_buddy('Named_One@test.local')$$, 'P0002', 'user_not_found',
  'nor does a chosen name followed by a domain');

select * from finish();
rollback;

-- Deleting an account needs the password entered again: delete_my_account refuses a session that
-- has not entered the password in the last five minutes (password_required P0103), read from the
-- access token's `amr` claim; a session a mailed link started has no password entry. Nothing is
-- deleted by a refusal, and a fresh password lets her go.
begin;
select plan(11);

select tests.create_user('fresh');
select tests.create_user('stale');
select tests.create_user('linked');
select tests.create_user('scripted');
create temp table ids as
  select name, tests.get_user_id(name) as id from unnest(array['fresh', 'stale', 'linked', 'scripted']) name;
grant select on ids to public;


-- A session that signed in with its password an hour ago (a browser left signed in, refreshed since).
select tests.authenticate_as('stale');
select tests.set_amr(jsonb_build_array(jsonb_build_object('method', 'password',
  'timestamp', extract(epoch from now() - interval '1 hour')::bigint)));
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'a session that entered the password an hour ago cannot delete the account');
select throws_ok($$select public.delete_my_account('not the word either')$$, 'P0103', 'password_required',
  'nor learn whether the word it typed was right');
select tests.set_amr(jsonb_build_array(jsonb_build_object('method', 'password',
  'timestamp', extract(epoch from now() - interval '301 seconds')::bigint)));
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'five minutes and a second is too long ago');
-- Read as the database owner (the API roles do not read auth.users through SQL).
select tests.clear_authentication();
reset role;
select ok(exists (select 1 from auth.users where id = (select id from ids where name = 'stale')),
  'her account is still there');

-- A session a recovery link started: it may set a new password, but it never entered the old one.
select tests.authenticate_as('linked');
select tests.set_amr(jsonb_build_array(jsonb_build_object('method', 'recovery',
  'timestamp', extract(epoch from now())::bigint)));
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'a session a recovery link started cannot delete the account');
select tests.set_amr(jsonb_build_array(jsonb_build_object('method', 'otp', 'timestamp', extract(epoch from now())::bigint),
  jsonb_build_object('method', 'password', 'timestamp', 'now')));
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'a password entry without a numeric time counts for nothing');

-- A token without the claim (a client that forged no amr cannot have a signed one anyway).
select tests.authenticate_as('scripted');
select tests.set_amr(null);
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'a session without an amr claim cannot delete the account');
select tests.set_amr('"password"'::jsonb);
select throws_ok($$select public.delete_my_account('delete')$$, 'P0103', 'password_required',
  'nor one whose amr claim is not a list');

-- The password entered again just now, after other methods.
select tests.authenticate_as('fresh');
select tests.set_amr(jsonb_build_array(
  jsonb_build_object('method', 'recovery', 'timestamp', extract(epoch from now() - interval '2 hours')::bigint),
  jsonb_build_object('method', 'password', 'timestamp', extract(epoch from now() - interval '4 minutes')::bigint)));
select lives_ok($$select public.delete_my_account('delete')$$,
  'a session that entered the password four minutes ago deletes the account');
select tests.clear_authentication();
reset role;
select ok(not exists (select 1 from auth.users where id = (select id from ids where name = 'fresh')), 'her account is gone');

select is(has_function_privilege('authenticated', 'private.password_entered_within(integer)', 'execute'), false,
  'the helper is not an RPC');

select * from finish();
rollback;

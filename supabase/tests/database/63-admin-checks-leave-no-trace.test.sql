-- The console's checks leave no trace in the audit log: an account marked as a check account when
-- it was made (only the service role marks, and only an account nobody can have used: made in the
-- last two minutes, never signed in, at studyhall.invalid) is deleted without an audit row within
-- 15 minutes of its creation. Every other deletion is recorded, a marked account's after 15 minutes too.
begin;
select plan(14);

select tests.create_user('check', 'verify-0123456789ab@studyhall.invalid');
select tests.create_user('late_check', 'browser-proof-0123456789ab@studyhall.invalid');
select tests.create_user('used_check', 'verify-aaaaaaaaaaaa@studyhall.invalid');
select tests.create_user('old_check', 'verify-bbbbbbbbbbbb@studyhall.invalid');
select tests.create_user('student');
create temp table ids as
  select name, tests.get_user_id(name) as id
  from unnest(array['check', 'late_check', 'used_check', 'old_check', 'student']) name;
grant select on ids to public;
reset role;
update auth.users set last_sign_in_at = now() where id = (select id from ids where name = 'used_check');
update auth.users set created_at = now() - interval '3 minutes' where id = (select id from ids where name = 'old_check');

-- Who marks, and what.
select tests.authenticate_as('student');
select throws_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'student')),
  '42501', null, 'a student cannot mark an account, not even her own');
select tests.authenticate_as_service_role();
select throws_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'student')),
  'P0101', 'not_check_account', 'the service role cannot mark a student''s account');
select throws_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'used_check')),
  'P0101', 'not_check_account', 'nor a check address that has signed in');
select throws_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'old_check')),
  'P0101', 'not_check_account', 'nor one made more than two minutes ago');
select throws_ok(format($$select public.admin_mark_check_account(%L, 'backup')$$, (select id from ids where name = 'check')),
  'P0101', 'not_check_account', 'nor for a purpose that is no check');
select lives_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'check')),
  'it marks the account verify just made');
select lives_ok(format($$select public.admin_mark_check_account(%L, 'browser-proof')$$, (select id from ids where name = 'late_check')),
  'and the browser proof''s');
select throws_ok($$select * from private.check_accounts$$, '42501', null, 'the marks are out of the API''s reach');

-- Deleting them, as the auth admin API does: the database owner, nobody signed in.
reset role;
select set_config('request.jwt.claims', '', true);
delete from auth.users where id = (select id from ids where name = 'check');
select is((select count(*)::int from public.admin_audit_log where target_user_id = (select id from ids where name = 'check')), 0,
  'a check account deleted minutes after it was made leaves no audit row');
select is((select count(*)::int from public.users where id = (select id from ids where name = 'check')), 0,
  'and the deletion rule still removed its rows');

update auth.users set created_at = now() - interval '16 minutes' where id = (select id from ids where name = 'late_check');
delete from auth.users where id = (select id from ids where name = 'late_check');
select is((select action from public.admin_audit_log where target_user_id = (select id from ids where name = 'late_check')),
  'delete_account', 'a marked account deleted more than 15 minutes after it was made is recorded');
delete from auth.users where id = (select id from ids where name = 'used_check');
select is((select action from public.admin_audit_log where target_user_id = (select id from ids where name = 'used_check')),
  'delete_account', 'so is an unmarked check address');
delete from auth.users where id = (select id from ids where name = 'student');
select is((select action from public.admin_audit_log where target_user_id = (select id from ids where name = 'student')),
  'delete_account', 'and a student''s account');

-- Nothing a client sends marks an account: the console's header names the admin, never a check.
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
select throws_ok(format($$select public.admin_mark_check_account(%L, 'verify')$$, (select id from ids where name = 'old_check')),
  'P0101', 'not_check_account', 'the owner''s console cannot mark an account made before the check either');

select * from finish();
rollback;

-- The last admin cannot delete her own account (last_admin_account P0100); once another account
-- holds an admin row she can, and the other becomes the last one. Students without an admin row
-- delete theirs as before, with or without any admin on the server.
begin;
select plan(12);

select tests.create_user('only_admin');
select tests.create_user('next_admin');
select tests.create_user('student');
select tests.create_user('student_two');
create temp table ids as
  select name, tests.get_user_id(name) as id from unnest(array['only_admin', 'next_admin', 'student', 'student_two']) name;
grant select on ids to public;

-- No admin at all: a student deletes her account.
select tests.authenticate_as('student');
select lives_ok($$select public.delete_my_account('delete')$$, 'with no admin on the server a student deletes her account');

select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'only_admin'), 'admin');

select tests.authenticate_as('only_admin');
select throws_ok($$select public.delete_my_account('delete')$$, 'P0100', 'last_admin_account',
  'the only admin cannot delete her account');
-- Read as the database owner (the service role does not read auth.users through SQL).
select tests.clear_authentication();
reset role;
select ok(exists (select 1 from auth.users where id = (select id from ids where name = 'only_admin')),
  'her account is still there');
select ok(exists (select 1 from public.user_roles where user_id = (select id from ids where name = 'only_admin') and role = 'admin'),
  'and so is her admin row');

-- The confirmation is still checked first: a stray call learns nothing about roles.
select tests.authenticate_as('only_admin');
select throws_ok($$select public.delete_my_account('not it')$$, 'P0097', 'invalid_confirmation',
  'a wrong confirmation is refused as before');

-- Another role is not an admin row: a moderator or super admin does not let the last admin go.
select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'next_admin'), 'moderator');
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'next_admin'), 'super_admin');
select tests.authenticate_as('only_admin');
select throws_ok($$select public.delete_my_account('delete')$$, 'P0100', 'last_admin_account',
  'a moderator or super admin elsewhere does not count as another admin');

-- A student still deletes hers while an admin exists.
select tests.authenticate_as('student_two');
select lives_ok($$select public.delete_my_account('delete')$$, 'a student deletes her account while an admin exists');

-- With a second admin row she can go, and the second becomes the last.
select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'next_admin'), 'admin');
select tests.authenticate_as('only_admin');
select lives_ok($$select public.delete_my_account('delete')$$, 'with another admin row she deletes her account');
select tests.clear_authentication();
reset role;
select ok(not exists (select 1 from auth.users where id = (select id from ids where name = 'only_admin')), 'her account is gone');
select is((select count(*)::int from public.user_roles where role = 'admin'), 1, 'one admin row is left');
select tests.authenticate_as('next_admin');
select throws_ok($$select public.delete_my_account('delete')$$, 'P0100', 'last_admin_account',
  'the admin who remains is now the last one and cannot delete her account');

-- The auth admin API (the console's Users page; it deletes the auth.users row as the database
-- owner) is not refused by the database.
select tests.clear_authentication();
reset role;
delete from auth.users where id = (select id from ids where name = 'next_admin');
select is((select count(*)::int from public.user_roles where role = 'admin'), 0,
  'an admin deletion through auth.users is the owner''s decision (the console checks it)');

select * from finish();
rollback;

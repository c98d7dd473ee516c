-- The moderation audit log: admins read it, nobody else; nobody (no API role, not the service
-- role, not the database owner) updates, deletes or truncates it; only definer functions append.
begin;
select plan(17);

select tests.create_user('admin');
select tests.create_user('super');
select tests.create_user('student');
select tests.create_user('global_moderator');

select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values
  (tests.get_user_id('admin'), 'admin'), (tests.get_user_id('super'), 'super_admin'),
  (tests.get_user_id('global_moderator'), 'moderator');

-- One row, appended the only way there is: a definer function.
reset role;
select private.record_audit('admin', 'test_action', tests.get_user_id('student'), 'users',
                            tests.get_user_id('student')::text, '{"note": "seed"}');

-- Reads (of the seeded row: the role grants above are in the log too).
select tests.authenticate_as('admin');
select is((select count(*)::int from public.admin_audit_log where action = 'test_action'), 1, 'an admin reads the audit log');
select tests.authenticate_as('super');
select is((select count(*)::int from public.admin_audit_log where action = 'test_action'), 1, 'a super admin reads the audit log');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.admin_audit_log where action = 'test_action'), 1, 'the service role (the console) reads the audit log');
select tests.authenticate_as('student');
select is((select count(*)::int from public.admin_audit_log), 0, 'a student reads nothing, not even rows about herself');
select tests.authenticate_as('global_moderator');
select is((select count(*)::int from public.admin_audit_log), 0, 'the app-wide moderator role reads nothing');
select tests.clear_authentication();
select throws_ok($$select count(*) from public.admin_audit_log$$, '42501', null, 'anon cannot read the audit log');

-- Writes by the API roles: refused by privileges.
select tests.authenticate_as('admin');
select throws_ok($$insert into public.admin_audit_log (actor_role, action) values ('admin', 'forged')$$,
  '42501', null, 'an admin cannot insert a row directly');
select throws_ok($$update public.admin_audit_log set action = 'edited'$$, '42501', null, 'an admin cannot edit a row');
select throws_ok($$delete from public.admin_audit_log$$, '42501', null, 'an admin cannot delete a row');
select tests.authenticate_as_service_role();
select throws_ok($$insert into public.admin_audit_log (actor_role, action) values ('service_role', 'forged')$$,
  '42501', null, 'the service role cannot insert a row directly');
select throws_ok($$update public.admin_audit_log set detail = '{}'$$, '42501', null, 'the service role cannot edit a row');
select throws_ok($$delete from public.admin_audit_log$$, '42501', null, 'the service role cannot delete a row');
select throws_ok($$truncate public.admin_audit_log$$, '42501', null, 'the service role cannot truncate the log');
select throws_ok($$select private.record_audit('admin', 'forged', null, null, null, '{}')$$,
  '42501', null, 'the service role cannot call the appending function');

-- Even the table owner is refused by the trigger.
reset role;
select throws_ok($$update public.admin_audit_log set action = 'edited'$$, 'P0096', 'audit_log_immutable',
  'the database owner cannot edit a row');
select throws_ok($$delete from public.admin_audit_log$$, 'P0096', 'audit_log_immutable',
  'the database owner cannot delete a row');
select throws_ok($$truncate public.admin_audit_log$$, 'P0096', 'audit_log_immutable',
  'the database owner cannot truncate the log');

select * from finish();
rollback;

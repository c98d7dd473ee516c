-- The console's actions in the one audit log: only the service role appends them, each names the
-- console's admin from the request header, and a header sent by anyone else names nobody.
begin;
select plan(9);

select tests.create_user('ola');
select tests.create_user('pim');

-- The service role, as the console calls it: the admin named in the header ----------------------
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "user:11111111-1111-4111-8111-111111111111:head@school.test"}', true);
select lives_ok(format($$select public.admin_audit_console_action('console:ban_user', %L, '{"duration": "24h"}')$$,
  tests.get_user_id('ola')), 'the console records a ban it made through the auth API');
select is((select detail from public.admin_audit_log where action = 'console:ban_user'),
  '{"duration": "24h", "console_admin": "user:11111111-1111-4111-8111-111111111111:head@school.test"}'::jsonb,
  'with its detail and the console''s admin');
select is((select actor_role || ':' || target_user_id::text from public.admin_audit_log where action = 'console:ban_user'),
  'service_role:' || tests.get_user_id('ola')::text, 'as the service role, on her');
select throws_ok($$select public.admin_audit_console_action('ban_user', null, '{}')$$, 'P0099', null,
  'an action outside the console:<name> form is refused');
select throws_ok($$select public.admin_audit_console_action('console:x', null, '[1]')$$, 'P0099', null,
  'so is a detail that is not an object');

-- A moderation RPC called by the console names the admin too -----------------------------------
select tests.authenticate_as('ola');
select public.community_submit_report('user', tests.get_user_id('pim'), 'spam in every group');
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
select lives_ok(format($$select public.resolve_report(%L, 'dismiss')$$,
  (select id from public.community_reports where reporter_id = tests.get_user_id('ola'))),
  'the console resolves a report as the service role ...');
select is((select detail ->> 'console_admin' from public.admin_audit_log where action = 'resolve_report:dismiss'), 'secret',
  '... and the row names the console''s admin');

-- Anyone else: no console actions, and the header names nobody ---------------------------------
select tests.authenticate_as('pim');
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
select throws_ok($$select public.admin_audit_console_action('console:ban_user', null, '{}')$$, '42501', null,
  'a student cannot append to the log');
reset role;
select is(private.console_admin(), null, 'a header from a session that is not the service role names nobody');

select * from finish();
rollback;

-- Every console action that changes the database is recorded once, by the database, in its own
-- transaction: role grants and revokes (any write of user_roles), voids (any change of voided_at),
-- and an admin's deletion of an account through admin_delete_account, each naming the console's
-- admin; role rows that go with their account are part of that deletion's one row.
begin;
select plan(17);

select tests.create_user('ann');   -- an admin account
select tests.create_user('ben');   -- the student acted on
select tests.create_user('cal');   -- an account the console deletes
select tests.create_user('dot');   -- an admin whose account is deleted
create temp table ids as
  select name, tests.get_user_id(name) as id from unnest(array['ann', 'ben', 'cal', 'dot']) name;
grant select on ids to public;

-- Roles --------------------------------------------------------------------------------------------
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
insert into public.user_roles (user_id, role, granted_by)
  values ((select id from ids where name = 'ann'), 'admin', null), ((select id from ids where name = 'dot'), 'admin', null);
select results_eq(
  $$select action, actor_role, target_user_id, detail from public.admin_audit_log where action = 'grant_role' order by id$$,
  $$values ('grant_role'::text, 'service_role'::text, (select id from ids where name = 'ann'), '{"role": "admin", "console_admin": "secret"}'::jsonb),
           ('grant_role', 'service_role', (select id from ids where name = 'dot'), '{"role": "admin", "console_admin": "secret"}'::jsonb)$$,
  'each grant is recorded once, naming the console''s admin');
select set_config('request.headers', '{"x-studyhall-console-admin": "user:' || (select id from ids where name = 'ann') || ':ann@test.local"}', true);
select lives_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'dot')),
  'an admin revokes another admin''s row');
select is((select detail from public.admin_audit_log where action = 'revoke_role'),
  jsonb_build_object('role', 'admin', 'console_admin', 'user:' || (select id from ids where name = 'ann') || ':ann@test.local'),
  'the revoke is recorded once, naming her');
update public.user_roles set role = 'moderator' where user_id = (select id from ids where name = 'ann');
select is(
  (select array_agg(action || ':' || (detail ->> 'role') order by id) from public.admin_audit_log
   where target_user_id = (select id from ids where name = 'ann') and action like '%_role'),
  array['grant_role:admin', 'revoke_role:admin', 'grant_role:moderator'],
  'changing a role in place is a revoke of the old and a grant of the new');
update public.user_roles set granted_by = (select id from ids where name = 'ben') where user_id = (select id from ids where name = 'ann');
select is((select count(*)::int from public.admin_audit_log where target_user_id = (select id from ids where name = 'ann')), 3,
  'a change that is no grant or revoke adds nothing');
select tests.authenticate_as('ben');
select throws_ok($$insert into public.user_roles (user_id, role) values (auth.uid(), 'admin')$$, '42501', null,
  'a student still cannot grant herself a role');

-- Voids --------------------------------------------------------------------------------------------
select public.record_study_session(now() - interval '3 hours', 40);
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
select lives_ok(format($$select public.void_study_session(%L, 'Timer left running', 'secret')$$,
  (select id from public.study_sessions where user_id = (select id from ids where name = 'ben'))), 'the console voids a session');
select is(
  (select jsonb_build_object('action', action, 'actor', actor_role, 'on', target_user_id, 'reason', detail ->> 'reason',
                             'minutes', detail -> 'minutes', 'admin', detail ->> 'console_admin')
   from public.admin_audit_log where target_table = 'study_sessions'),
  jsonb_build_object('action', 'void_session', 'actor', 'service_role', 'on', (select id from ids where name = 'ben'),
                     'reason', 'Timer left running', 'minutes', 40, 'admin', 'secret'),
  'the void is recorded once, with the reason, naming the console''s admin');
reset role;
update public.study_sessions set voided_at = null, voided_by = null, void_reason = null
  where user_id = (select id from ids where name = 'ben');
select is((select action from public.admin_audit_log where target_table = 'study_sessions' order by id desc limit 1),
  'unvoid_session', 'counting it again by SQL is recorded too');

-- Deletions ----------------------------------------------------------------------------------------
select tests.authenticate_as('ben');
select throws_ok(format($$select public.admin_delete_account(%L)$$, (select id from ids where name = 'cal')), '42501', null,
  'a student cannot call the console''s deletion');
select tests.authenticate_as_service_role();
select set_config('request.headers', '{"x-studyhall-console-admin": "secret"}', true);
select is((public.admin_delete_account((select id from ids where name = 'cal'))) ->> 'deleted', (select id from ids where name = 'cal')::text,
  'the console deletes an account');
select is(
  (select array_agg(action || '/' || actor_role || '/' || (detail ->> 'console_admin')) from public.admin_audit_log
   where target_user_id = (select id from ids where name = 'cal')),
  array['delete_account/service_role/secret'],
  'with exactly one row, which names the console''s admin');
select throws_ok(format($$select public.admin_delete_account(%L)$$, (select id from ids where name = 'cal')), 'P0002', 'user_not_found',
  'an account that is gone is not found');
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'dot'), 'moderator');
select lives_ok(format($$select public.admin_delete_account(%L)$$, (select id from ids where name = 'dot')),
  'an account with a role is deleted');
select is(
  (select array_agg(action order by id) from public.admin_audit_log
   where target_user_id = (select id from ids where name = 'dot') and id > (select max(id) from public.admin_audit_log where action = 'revoke_role')),
  array['grant_role', 'delete_account'],
  'her role going with her account adds no revoke_role row');
reset role;
select is((select count(*)::int from public.user_roles where user_id = (select id from ids where name = 'dot')), 0,
  'and the role is gone with it');

-- The audit log is still nobody's to edit.
select tests.authenticate_as_service_role();
select throws_ok($$delete from public.admin_audit_log where action = 'void_session'$$, '42501', null,
  'the service role cannot remove a row it caused');

select * from finish();
rollback;

-- Revoking an admin row depends on who signed in to the console: the owner (`secret`) may revoke
-- any, the last one included, so a mistaken grant can be undone; an admin signed in with her
-- account never revokes her own row (own_admin_row), and nobody but the owner revokes the last
-- one (last_admin). Only the service role calls it.
begin;
select plan(11);

select tests.create_user('ann');
select tests.create_user('ben');
create temp table ids as select name, tests.get_user_id(name) as id from unnest(array['ann', 'ben']) name;
grant select on ids to public;
reset role;
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'ben'), 'admin');
create function pg_temp.console_as(p_subject text) returns void language sql as $$
  select tests.authenticate_as_service_role();
  select set_config('request.headers', jsonb_build_object('x-studyhall-console-admin', p_subject)::text, true);
$$;
create function pg_temp.account(p_name text) returns text language sql as $$
  select 'user:' || (select id from ids where name = p_name) || ':' || p_name || '@test.local'
$$;

-- Ben holds the only admin row, granted by mistake.
select tests.authenticate_as('ann');
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  '42501', null, 'no signed-in account calls it, an admin neither');
select pg_temp.console_as(null);
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'P0001', 'last_admin', 'a service-role call that names nobody keeps the last admin row');
select pg_temp.console_as(pg_temp.account('ann'));
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'P0001', 'last_admin', 'so does another admin''s console (one in by ADMIN_EMAILS)');
select pg_temp.console_as(pg_temp.account('ben'));
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'P0102', 'own_admin_row', 'Ben, signed in with his account, cannot revoke the row he is signed in with');
select pg_temp.console_as('secret');
select lives_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'the owner revokes the mistaken grant, the last admin row though it is');
select is((select count(*)::int from public.user_roles where role = 'admin'), 0, 'no admin row is left');
select is((select detail ->> 'console_admin' from public.admin_audit_log where action = 'revoke_role'), 'secret',
  'and the revoke is recorded as the owner''s');

-- With two admin rows, each admin may revoke the other's, never her own.
reset role;
insert into public.user_roles (user_id, role) values
  ((select id from ids where name = 'ann'), 'admin'), ((select id from ids where name = 'ben'), 'admin');
select pg_temp.console_as(pg_temp.account('ann'));
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ann')),
  'P0102', 'own_admin_row', 'Ann cannot revoke her own row while another remains either');
select lives_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'Ann revokes Ben''s');
select throws_ok(format($$select public.admin_revoke_role(%L, 'admin')$$, (select id from ids where name = 'ben')),
  'P0002', 'role_not_found', 'a row that is gone is not found');

-- Other roles are no admin rows: nobody is locked out by them.
reset role;
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'ann'), 'moderator');
select pg_temp.console_as(pg_temp.account('ann'));
select lives_ok(format($$select public.admin_revoke_role(%L, 'moderator')$$, (select id from ids where name = 'ann')),
  'an admin gives up her own moderator role');

select * from finish();
rollback;

-- The audit log a page at a time (admin_audit_entries): newest first, each page after the last
-- entry of the one before (entries of one transaction share their time and are told apart by id),
-- filtered by an action or a family of actions and by a person; as the table's policy says, an
-- admin and the service role read it, a student reads nothing.
begin;
select plan(12);

select tests.create_user('ann');  -- an admin account
select tests.create_user('ben');
select tests.create_user('cy');
create temp table ids as select name, tests.get_user_id(name) as id from unnest(array['ann', 'ben', 'cy']) name;
grant select on ids to public;

-- 250 entries in one transaction (one `at`), and a few more of other kinds.
reset role;
insert into public.user_roles (user_id, role) values ((select id from ids where name = 'ann'), 'admin');
select private.record_audit('service_role', 'console:mail_reset_link', (select id from ids where name = 'cy'), null, null,
  '{"console_admin": "secret"}') from generate_series(1, 250);
select private.record_audit('service_role', 'resolve_report:dismiss', (select id from ids where name = 'ben'), null, null,
  jsonb_build_object('console_admin', 'user:' || (select id from ids where name = 'ann') || ':ann@test.local'));
select private.record_audit('admin', 'resolve_report:ban', (select id from ids where name = 'cy'), null, null, '{}');
select private.record_audit('service_role', 'console:ban_user', (select id from ids where name = 'ben'), null, null, '{}');
create temp table all_ids as select id from public.admin_audit_log order by at desc, id desc;
grant select on all_ids to public;

-- Paging.
create function pg_temp.walk(p_page integer) returns bigint[] language plpgsql as $$
declare
  v_seen bigint[] := '{}';
  v_page bigint[];
  v_before bigint;
begin
  loop
    select array_agg(id order by at desc, id desc) into v_page from public.admin_audit_entries(null, null, v_before, p_page);
    exit when v_page is null;
    v_seen := v_seen || v_page;
    v_before := v_page[array_length(v_page, 1)];
  end loop;
  return v_seen;
end
$$;
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.admin_audit_entries()), 100, 'a page holds 100 entries unless asked otherwise');
select is(pg_temp.walk(100), (select array_agg(id) from all_ids),
  'paging 100 at a time past 250 entries of one timestamp visits each once, newest first');
select is(pg_temp.walk(7), (select array_agg(id) from all_ids), 'and so does any other page size');
select is((select count(*)::int from public.admin_audit_entries(p_limit => 100000)), 254,
  'a page holds at most 500 entries');

-- Filters.
select is((select array_agg(action order by id) from public.admin_audit_entries('resolve_report')),
  array['resolve_report:dismiss', 'resolve_report:ban'], 'an action family matches each of its actions');
select is((select count(*)::int from public.admin_audit_entries('console:ban_user')), 1, 'an action matches itself');
select is((select count(*)::int from public.admin_audit_entries('console:ban')), 0, 'and not another that starts like it');
select is((select array_agg(action order by id) from public.admin_audit_entries(null, (select id from ids where name = 'ben')::text)),
  array['resolve_report:dismiss', 'console:ban_user'],
  'a person matches the entries on her account');
select is((select array_agg(action order by id) from public.admin_audit_entries(null, (select id from ids where name = 'ann')::text)),
  array['grant_role', 'resolve_report:dismiss'],
  'and those where she was the console''s admin (her grant, and the report she resolved)');
select is((select count(*)::int from public.admin_audit_entries('console:mail_reset_link', 'secret', null, 500)), 250,
  'the owner is the person `secret`');

-- Who reads.
select tests.authenticate_as('ann');
select is((select count(*)::int from public.admin_audit_entries(p_limit => 500)), 254, 'an admin reads every entry');
select tests.authenticate_as('ben');
select is((select count(*)::int from public.admin_audit_entries(null, (select id from ids where name = 'ben')::text)), 0,
  'a student reads nothing, not even entries about herself');

select * from finish();
rollback;

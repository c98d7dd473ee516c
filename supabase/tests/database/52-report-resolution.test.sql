-- Reports resolved by admins only: each resolution and the action it applies in the same
-- transaction, one resolution per report, what the reporter reads of her report (its status) and
-- what nobody else reads, and the admins' queue with its context.
begin;
select plan(31);

select tests.create_user('owner');
select tests.create_user('troll');
select tests.create_user('reporter');
select tests.create_user('bystander');
select tests.create_user('admin');
select tests.create_user('global_moderator');

select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values
  (tests.get_user_id('admin'), 'admin'), (tests.get_user_id('global_moderator'), 'moderator');

select tests.authenticate_as('reporter');
select public.community_bootstrap_profile('reporter_handle');
select tests.authenticate_as('troll');
select public.community_bootstrap_profile('troll_handle');
select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Report Group', 'private', 'open', tests.get_user_id('owner'));

select tests.authenticate_as_service_role();
create temp table rg as select id from public.groups where name = 'Report Group';
grant select on rg to public;
create temp table ids (label text primary key, id uuid);
grant select, insert on ids to public;
-- Twelve messages a minute apart, the seventh the troll's; each report on one of them.
insert into public.group_members (group_id, user_id)
  select (select id from rg), tests.get_user_id(n) from unnest(array['troll', 'reporter', 'bystander']) n;
insert into public.group_chat_messages (group_id, sender_id, content, created_at)
  select (select id from rg), tests.get_user_id(case when i = 7 then 'troll' else 'bystander' end),
         'message ' || i, now() - interval '1 hour' + i * interval '1 minute'
  from generate_series(1, 12) i;
insert into public.group_chat_messages (group_id, sender_id, content)
  values ((select id from rg), tests.get_user_id('troll'), 'second offence');
insert into ids select 'bad_message', id from public.group_chat_messages where content = 'message 7';
insert into ids select 'second_message', id from public.group_chat_messages where content = 'second offence';

select tests.authenticate_as('reporter');
insert into ids select 'r_delete', public.community_submit_report('message', (select id from ids where label = 'bad_message'), 'insults');
insert into ids select 'r_remove', public.community_submit_report('message', (select id from ids where label = 'second_message'), 'again');
insert into ids select 'r_user', public.community_submit_report('user', tests.get_user_id('troll'), 'spams everyone');
insert into ids select 'r_group', public.community_submit_report('group', (select id from rg), 'off-topic group');
select tests.authenticate_as('bystander');
insert into ids select 'r_other', public.community_submit_report('user', tests.get_user_id('troll'), 'mine');
-- Oldest first is decided by created_at: spread them out.
select tests.authenticate_as_service_role();
update public.community_reports r set created_at = now() - (10 - x.n) * interval '1 second'
  from (select id, row_number() over (order by label) as n from ids where label like 'r\_%') x where x.id = r.id;

-- Who may resolve.
select tests.authenticate_as('owner');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_delete'), 'delete_message')$$,
  'P0092', 'not_admin', 'a group owner cannot resolve a report');
select tests.authenticate_as('reporter');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_delete'), 'dismiss')$$,
  'P0092', 'not_admin', 'the reporter cannot resolve her own report');
select tests.authenticate_as('global_moderator');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_delete'), 'dismiss')$$,
  'P0092', 'not_admin', 'the app-wide moderator role cannot resolve reports');
select throws_ok($$select public.admin_open_reports()$$, 'P0092', 'not_admin', 'nor read the queue');
select tests.authenticate_as('bystander');
select throws_ok($$select public.admin_open_reports()$$, 'P0092', 'not_admin', 'a student cannot read the queue');
select throws_ok($$update public.community_reports set status = 'dismissed', resolution = 'dismiss', resolved_at = now()
  where id = (select id from ids where label = 'r_other')$$, '42501', null, 'a reporter cannot resolve her report directly');
select tests.clear_authentication();
select throws_ok($$select public.admin_open_reports()$$, '42501', null, 'anon cannot call the queue');

-- The queue, oldest open first, with context.
select tests.authenticate_as('admin');
select is(jsonb_array_length(public.admin_open_reports()), 5, 'an admin reads every open report');
select is((select array_agg(x ->> 'id' order by n) from jsonb_array_elements(public.admin_open_reports()) with ordinality e(v, n)
           cross join lateral (select v -> 'report') r(x)),
  array(select id::text from ids where label like 'r\_%' order by label), 'oldest open first');
select is((select v from jsonb_array_elements(public.admin_open_reports()) v
           where v -> 'report' ->> 'id' = (select id::text from ids where label = 'r_delete')) -> 'reporter' ->> 'handle',
  'reporter_handle', 'each report names its reporter''s handle');
select is((select jsonb_build_object(
             'message', v -> 'message' ->> 'content', 'sender', v -> 'message' ->> 'sender_handle',
             'before', (select array_agg(b ->> 'content') from jsonb_array_elements(v -> 'before') b),
             'after', (select array_agg(a ->> 'content') from jsonb_array_elements(v -> 'after') a),
             'group', v -> 'group' ->> 'name', 'reported', v -> 'reported_user' ->> 'handle')
           from jsonb_array_elements(public.admin_open_reports()) v
           where v -> 'report' ->> 'id' = (select id::text from ids where label = 'r_delete')),
  jsonb_build_object('message', 'message 7', 'sender', 'troll_handle',
    'before', array['message 2', 'message 3', 'message 4', 'message 5', 'message 6'],
    'after', array['message 8', 'message 9', 'message 10', 'message 11', 'message 12'],
    'group', 'Report Group', 'reported', 'troll_handle'),
  'a message report comes with the message, five messages before and after, the group and the reported student');
select is((select v -> 'reported_user' ->> 'handle' from jsonb_array_elements(public.admin_open_reports()) v
           where v -> 'report' ->> 'id' = (select id::text from ids where label = 'r_user')),
  'troll_handle', 'a user report names the reported student');
select is(jsonb_array_length(public.admin_open_reports(2, 0)), 2, 'the queue pages');

-- Resolutions.
select is((public.resolve_report((select id from ids where label = 'r_delete'), 'delete_message', 'insults, removed')).status,
  'actioned', 'an admin resolves a message report by deleting the message');
select tests.authenticate_as_service_role();
select is((select content || '|' || (deleted_by = tests.get_user_id('admin'))::text from public.group_chat_messages
           where id = (select id from ids where label = 'bad_message')),
  '|true', 'the message is a tombstone, deleted by the admin, in the same call');
select tests.authenticate_as('admin');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_delete'), 'dismiss')$$,
  'P0094', 'report_already_resolved', 'a resolved report cannot be resolved again');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_group'), 'delete_message')$$,
  'P0095', 'invalid_resolution', 'delete_message needs a message report');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_group'), 'remove_member')$$,
  'P0095', 'invalid_resolution', 'remove_member needs a reported student');
select throws_ok($$select public.resolve_report((select id from ids where label = 'r_group'), 'scold')$$,
  'P0095', 'invalid_resolution', 'an unknown resolution is refused');
select throws_ok($$select public.resolve_report(gen_random_uuid(), 'dismiss')$$,
  'P0093', 'report_not_found', 'an unknown report is refused');
select is((public.resolve_report((select id from ids where label = 'r_remove'), 'remove_member')).resolution,
  'remove_member', 'an admin resolves a message report by removing its sender from the group');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.group_members where group_id = (select id from rg) and user_id = tests.get_user_id('troll')),
  0, 'the sender is no longer a member');
select tests.authenticate_as('admin');
select is((public.resolve_report((select id from ids where label = 'r_user'), 'ban', 'banned through the console')).status,
  'actioned', 'a ban is recorded (the console bans through the auth admin API)');
select is((public.resolve_report((select id from ids where label = 'r_group'), 'dismiss')).status,
  'dismissed', 'a dismissal');
select results_eq(
  $$select action, actor_role, target_user_id from public.admin_audit_log where target_table = 'community_reports' order by id$$,
  $$values ('resolve_report:delete_message'::text, 'admin'::text, tests.get_user_id('troll')),
           ('resolve_report:remove_member', 'admin', tests.get_user_id('troll')),
           ('resolve_report:ban', 'admin', tests.get_user_id('troll')),
           ('resolve_report:dismiss', 'admin', null::uuid)$$,
  'every resolution is in the audit log');
select is(jsonb_array_length(public.admin_open_reports()), 1, 'only the still open report is left in the queue');

-- The reporter reads her reports' status, and nothing about others'.
select tests.authenticate_as('reporter');
select results_eq(
  $$select status, resolved_at is not null from public.community_reports order by created_at, id$$,
  $$values ('actioned'::text, true), ('dismissed', true), ('actioned', true), ('actioned', true)$$,
  'the reporter reads the status of each of her reports');
select throws_ok($$select resolution from public.community_reports$$, '42501', null,
  'the reporter cannot read how a report was resolved (whether someone was banned)');
select throws_ok($$select note, resolved_by from public.community_reports$$, '42501', null,
  'nor who resolved it or the admin''s note');
select tests.authenticate_as('bystander');
select results_eq($$select status from public.community_reports$$, $$values ('open'::text)$$,
  'another student reads only her own report, none of the reporter''s');

-- The service role (the console) resolves too.
select tests.authenticate_as_service_role();
select is((public.resolve_report((select id from ids where label = 'r_other'), 'dismiss')).resolved_by, null::uuid,
  'the service role resolves a report, with no account as resolver');

select * from finish();
rollback;

-- Deleting an account, driven by the catalog: every table in public, private and storage with a
-- column that names a user (a foreign key to auth.users or public.users, or a uuid/text column
-- named like user_id, owner_id, sender_id, reporter_id, ...) gets a row of hers here first (a new
-- such table fails this file until it is seeded below), then she deletes her account and no row
-- in any of them names her any more. Also: her groups handed over or closed, her messages left as
-- anonymous tombstones, the storage-first order, the confirmation, an admin deletion through
-- auth.users applying the same rule, and her data export.
begin;
select plan(29);

select tests.create_user('leaver');
select tests.create_user('heir_mod');
select tests.create_user('old_member');
select tests.create_user('other');
select tests.create_user('buddy');
select tests.create_user('super');
select tests.create_user('admin_deleted');
-- Their ids, for after their accounts (and with them the helpers' lookup) are gone.
create temp table gone as select name, tests.get_user_id(name) as id from unnest(array['leaver', 'admin_deleted']) name;
grant select on gone to public;

select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values (tests.get_user_id('super'), 'super_admin');
insert into public.user_roles (user_id, role) values (tests.get_user_id('leaver'), 'moderator');
insert into public.user_roles (user_id, role, granted_by) values (tests.get_user_id('other'), 'moderator', tests.get_user_id('leaver'));
insert into public.admin_email_confirmations (user_id, email, confirmed_by) values (tests.get_user_id('leaver'), 'leaver@test.local', 'secret');
-- Marked as a check account too, but made an hour ago: her deletion is recorded like any other.
reset role;
insert into private.check_accounts (user_id, purpose) values (tests.get_user_id('leaver'), 'verify');
update auth.users set created_at = now() - interval '1 hour' where id = tests.get_user_id('leaver');

-- Every column that names a user, from the catalog.
create temp table user_columns as
select n.nspname::text as schema_name, c.relname::text as table_name, a.attname::text as column_name
from pg_attribute a
join pg_class c on c.oid = a.attrelid and c.relkind in ('r', 'p')
join pg_namespace n on n.oid = c.relnamespace and n.nspname in ('public', 'private', 'storage')
where a.attnum > 0 and not a.attisdropped
  and (exists (select 1 from pg_constraint k
               where k.contype = 'f' and k.conrelid = c.oid and k.conkey = array[a.attnum]
                 and k.confrelid in ('auth.users'::regclass, 'public.users'::regclass))
       or (a.atttypid in ('uuid'::regtype, 'text'::regtype)
           and a.attname ~ '^(user_id|owner|owner_id|sender_id|reporter_id|recipient_id|friend_id|actor_id|target_user_id|created_by|responded_by|granted_by|deleted_by|resolved_by|archived_by_id)$'));
grant select on user_columns to public;

-- The rows naming her, per column, read as the database owner.
create function pg_temp.rows_naming(p_user_id uuid) returns table (col text, n integer)
language plpgsql as $$
declare
  r record;
begin
  for r in select * from user_columns order by 1, 2, 3 loop
    return query execute format('select %L, count(*)::int from %I.%I where %I::text = $1::text',
      format('%s.%s.%s', r.schema_name, r.table_name, r.column_name), r.schema_name, r.table_name, r.column_name)
      using p_user_id;
  end loop;
end
$$;

-- Her rows, made the way the app makes them.
select tests.authenticate_as('leaver');
select public.community_bootstrap_profile('leaver_handle');
select public.record_study_session(now() - interval '2 hours', 25, 'bio', 'Biology', null, null, 5, 1, 0);
insert into public.user_tasks (user_id, title) values (auth.uid(), 'Read chapter 3');
insert into public.user_subjects (id, user_id, name) values (gen_random_uuid(), auth.uid(), 'Biology');
insert into public.user_backups (user_id, payload) values (auth.uid(), '{"tasks": [1]}');
select tests.authenticate_as_service_role();
select public.admin_replace_current_backup(tests.get_user_id('leaver'),
  (select id from public.user_backups where user_id = tests.get_user_id('leaver')), '{"tasks": [1, 2]}', 'test', 'repair', 'console');
select tests.authenticate_as('buddy');
select public.community_bootstrap_profile('buddy_handle');
select tests.authenticate_as('other');
select public.community_bootstrap_profile('other_handle');
insert into public.groups (name, join_policy, created_by) values ('Others Group', 'open', tests.get_user_id('other'));
insert into public.groups (name, join_policy, created_by) values ('Others Request Group', 'request', tests.get_user_id('other'));
select public.community_send_group_message((select id from public.groups where name = 'Others Group'), 'from other');

select tests.authenticate_as('leaver');
insert into public.groups (name, join_policy, created_by) values ('Handed Group', 'request', tests.get_user_id('leaver'));
insert into public.groups (name, join_policy, created_by) values ('Alone Group', 'open', tests.get_user_id('leaver'));
select tests.authenticate_as_service_role();
create temp table lg as select id, name from public.groups;
grant select on lg to public;
-- old_member joined long before heir_mod, but a moderator comes first.
insert into public.group_members (group_id, user_id, role, joined_at) values
  ((select id from lg where name = 'Handed Group'), tests.get_user_id('old_member'), 'member', now() - interval '30 days'),
  ((select id from lg where name = 'Handed Group'), tests.get_user_id('heir_mod'), 'moderator', now() - interval '1 day');
select tests.authenticate_as('other');
select public.community_join_group((select id from lg where name = 'Handed Group'));
select tests.authenticate_as('leaver');
select public.community_respond_join_request(
  (select id from public.community_join_requests where user_id = tests.get_user_id('other')), true);
select tests.authenticate_as('other');
select public.community_send_group_message((select id from lg where name = 'Handed Group'), 'a rude one') is not null;

select tests.authenticate_as('leaver');
select public.community_join_group((select id from lg where name = 'Others Group'));
select public.community_join_group((select id from lg where name = 'Others Request Group'));
select public.community_send_group_message((select id from lg where name = 'Others Group'), 'leaver was here');
select public.community_send_group_message((select id from lg where name = 'Handed Group'), 'my own group');
select public.delete_chat_message((select id from public.group_chat_messages where content = 'a rude one'));
select public.community_create_invite('group', (select id from lg where name = 'Handed Group'));
select public.community_create_invite('buddy', null);
select public.community_submit_report('group', (select id from lg where name = 'Others Group'), 'off-topic');
select public.community_request_buddy('buddy_handle');
select tests.authenticate_as('buddy');
select public.community_respond_buddy((select id from public.community_friends where friend_id = auth.uid()), true);
select public.community_set_start_alert('buddy', tests.get_user_id('leaver'), null, null);
select public.community_register_device_token('buddy-device');
select public.community_submit_report('user', tests.get_user_id('leaver'), 'rude');
select tests.authenticate_as('leaver');
select public.community_set_start_alert('buddy', tests.get_user_id('buddy'), null, null);
select public.community_register_device_token('leaver-device');
select public.community_heartbeat('studying');
select tests.authenticate_as('buddy');
select public.community_heartbeat('studying');
select tests.authenticate_as('leaver');
insert into storage.objects (bucket_id, name, owner, owner_id)
values ('avatars', auth.uid() || '/me.png', auth.uid(), auth.uid()::text);

-- Every table that can name her holds a row of hers, so the deletion below is proven on all of them.
reset role;
-- Her admin console sessions ended on every gateway of a district (the gateways' shared state).
select public.gateway_end_admin_account(tests.get_user_id('leaver')::text, extract(epoch from now())::bigint);
select is(
  array(select distinct format('%s.%s', u.schema_name, u.table_name) from user_columns u
        -- The audit log keeps its rows (ids only; docs/database.md#deleting-an-account), and buckets
        -- are the project's, made by migrations (their owner column is unused).
        where format('%s.%s', u.schema_name, u.table_name) not in ('public.admin_audit_log', 'storage.buckets')
          and not exists (select 1 from pg_temp.rows_naming(tests.get_user_id('leaver')) r
                          where r.col like format('%s.%s.%%', u.schema_name, u.table_name) and r.n > 0)
        order by 1),
  '{}'::text[],
  'every table with a column naming a user holds a row of hers before she leaves (seed a new table here)');
select cmp_ok((select count(distinct table_name)::int from user_columns), '>=', 24,
  'the catalog finds the tables that name users');
select ok((select count(*) from pg_temp.rows_naming(tests.get_user_id('leaver')) where col = 'storage.objects.owner' and n > 0) = 1,
  'storage objects are among them');

-- Refusals.
select tests.clear_authentication();
select throws_ok($$select public.delete_my_account('delete')$$, '42501', null, 'anon cannot call it');
select throws_ok($$select public.export_my_data()$$, '42501', null, 'nor export anything');
select tests.authenticate_as('leaver');
select throws_ok($$select public.delete_my_account('delete')$$, 'P0097', 'invalid_confirmation',
  'with a handle, she confirms with her handle, not the word');
select throws_ok($$select public.delete_my_account(null)$$, 'P0097', 'invalid_confirmation', 'a missing confirmation is refused');
select throws_ok($$select public.delete_my_account('LEAVER_HANDLE')$$, 'P0098', 'storage_objects_remain',
  'while she owns stored files, the account stays (files go first, through the Storage API)');
select is((select count(*)::int from public.users where id = tests.get_user_id('leaver')), 1, 'and nothing was deleted');

-- Export.
select is((select jsonb_build_object('handle', d -> 'profile' ->> 'handle', 'sessions', jsonb_array_length(d -> 'study_sessions'),
                                     'messages', jsonb_array_length(d -> 'messages'), 'groups', jsonb_array_length(d -> 'groups'),
                                     'reports', jsonb_array_length(d -> 'reports'), 'buddies', jsonb_array_length(d -> 'buddies'))
           from public.export_my_data() d),
  '{"handle": "leaver_handle", "sessions": 1, "messages": 2, "groups": 3, "reports": 1, "buddies": 1}'::jsonb,
  'export_my_data returns her profile, sessions, messages, groups, reports and buddies');
select tests.authenticate_as('buddy');
select is((select d -> 'profile' ->> 'handle' from public.export_my_data() d), 'buddy_handle', 'and only the caller''s own');

-- She deletes her files, then her account.
select tests.authenticate_as('leaver');
delete from storage.objects where owner = auth.uid();
select is((public.delete_my_account(' Leaver_Handle ')) ->> 'deleted', (select id from gone where name = 'leaver')::text,
  'she deletes her account by typing her handle (any case)');

reset role;
select is(
  array(select col from pg_temp.rows_naming((select id from gone where name = 'leaver')) where n > 0 and col not like 'public.admin_audit_log.%' order by 1),
  '{}'::text[],
  'no row in any table names her any more');
select is((select count(*)::int from auth.users where id = (select id from gone where name = 'leaver')), 0, 'her auth user is gone');
select is((select count(*)::int from public.community_reports where target_id = (select id from gone where name = 'leaver')), 0,
  'reports on her as a user are gone');
select is((select count(*)::int from public.community_start_alerts where target_id = (select id from gone where name = 'leaver')), 0,
  'start alerts on her are gone');
select is((select count(*)::int from public.community_notification_outbox where payload::text like '%' || (select id from gone where name = 'leaver') || '%'), 0,
  'no queued notification names her');
select is((select count(*)::int from public.group_chat_messages where content in ('leaver was here', 'my own group')), 0,
  'her messages'' bodies are gone');
select is((select count(*)::int from public.group_chat_messages where sender_id is null and deleted_at is not null and content = ''), 2,
  'her messages stay as anonymous tombstones');
select is((select user_id from public.group_members where group_id = (select id from lg where name = 'Handed Group') and role = 'owner'),
  tests.get_user_id('heir_mod'), 'her group goes to its moderator before a longer-standing member');
select is((select count(*)::int from public.groups where name = 'Alone Group'), 0,
  'a group with nobody but her (and the super admin) is closed');
select is((select count(*)::int from public.group_members where group_id = (select id from lg where name = 'Others Group')), 2,
  'she left the other groups (their owner and the super admin remain)');
select is((select content from public.group_chat_messages where group_id = (select id from lg where name = 'Others Group') and sender_id is not null),
  'from other', 'others'' messages are untouched');
select is((select action || '/' || actor_role from public.admin_audit_log where target_user_id = (select id from gone where name = 'leaver') and action = 'delete_account'),
  'delete_account/self', 'the deletion is in the audit log, which keeps its rows');
select is((select count(*)::int from public.user_roles where user_id = tests.get_user_id('other') and granted_by is null), 1,
  'a role she granted stays, without her name');

-- An admin deletion (DELETE /auth/v1/admin/users/:id deletes the auth.users row) applies the same rule.
select tests.authenticate_as('admin_deleted');
insert into public.groups (name, join_policy, created_by) values ('Admin Deleted Group', 'open', tests.get_user_id('admin_deleted'));
select tests.authenticate_as('old_member');
select public.community_join_group((select id from public.groups where name = 'Admin Deleted Group'));
select tests.authenticate_as('admin_deleted');
select public.community_send_group_message((select id from public.groups where name = 'Admin Deleted Group'), 'admin deleted me');
-- As the auth admin API does it: the database owner, no signed-in user.
reset role;
select set_config('request.jwt.claims', '', true);
delete from auth.users where id = tests.get_user_id('admin_deleted');
select is(
  array(select col from pg_temp.rows_naming((select id from gone where name = 'admin_deleted')) where n > 0 and col not like 'public.admin_audit_log.%' order by 1),
  '{}'::text[],
  'an admin deletion leaves no row naming her either');
select is((select user_id from public.group_members m join public.groups g on g.id = m.group_id
           where g.name = 'Admin Deleted Group' and m.role = 'owner'),
  tests.get_user_id('old_member'), 'her group goes to its longest-standing member');
select is((select count(*)::int from public.group_chat_messages where content = 'admin deleted me'), 0,
  'and her messages are emptied');
select is((select actor_role from public.admin_audit_log where target_user_id = (select id from gone where name = 'admin_deleted')),
  'service_role', 'recorded as done by the service (the auth admin API)');

select * from finish();
rollback;

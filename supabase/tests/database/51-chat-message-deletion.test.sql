-- Deleting chat messages: the sender her own, an owner or moderator any in her group (never
-- outside it), an admin anywhere; the tombstone members still read, with its body gone; and no
-- direct write that gets around the RPC.
begin;
select plan(35);

select tests.create_user('owner');
select tests.create_user('moderator');
select tests.create_user('member');
select tests.create_user('other_member');
select tests.create_user('outsider');
select tests.create_user('admin');
select tests.create_user('global_moderator');

select tests.authenticate_as_service_role();
insert into public.user_roles (user_id, role) values
  (tests.get_user_id('admin'), 'admin'), (tests.get_user_id('global_moderator'), 'moderator');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Delete Group', 'private', 'open', tests.get_user_id('owner'));
select tests.authenticate_as('outsider');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Other Group', 'public', 'open', tests.get_user_id('outsider'));

select tests.authenticate_as_service_role();
create temp table dg as select id, name from public.groups;
grant select on dg to public;
create temp table msg (label text primary key, id uuid);
grant select, insert on msg to public;

select tests.authenticate_as('moderator');
select public.community_join_group((select id from dg where name = 'Delete Group'));
select tests.authenticate_as('member');
select public.community_join_group((select id from dg where name = 'Delete Group'));
insert into msg select 'member_own', (public.community_send_group_message((select id from dg where name = 'Delete Group'), 'my own words')).id;
insert into msg select 'member_by_owner', (public.community_send_group_message((select id from dg where name = 'Delete Group'), 'owner removes this')).id;
insert into msg select 'member_by_moderator', (public.community_send_group_message((select id from dg where name = 'Delete Group'), 'moderator removes this')).id;
insert into msg select 'member_by_admin', (public.community_send_group_message((select id from dg where name = 'Delete Group'), 'admin removes this')).id;
insert into msg select 'member_kept', (public.community_send_group_message((select id from dg where name = 'Delete Group'), 'nobody may remove this')).id;
select tests.authenticate_as('other_member');
select public.community_join_group((select id from dg where name = 'Delete Group'));
select tests.authenticate_as('outsider');
insert into msg select 'elsewhere', (public.community_send_group_message((select id from dg where name = 'Other Group'), 'in another group')).id;
select tests.authenticate_as('owner');
select lives_ok($$select public.community_set_member_role((select id from dg where name = 'Delete Group'),
  tests.get_user_id('moderator'), 'moderator')$$, 'an owner makes a member a moderator');
select tests.authenticate_as('moderator');
select throws_ok($$select public.community_set_member_role((select id from dg where name = 'Delete Group'),
  tests.get_user_id('member'), 'moderator')$$, 'P0003', 'not_group_owner', 'a moderator cannot hand out roles');

-- The schema.
select ok((select relreplident = 'd' from pg_class where oid = 'public.group_chat_messages'::regclass),
  'chat messages keep the default replica identity, so an UPDATE event''s old record is the key, never the old body');
select ok(not has_column_privilege('authenticated', 'public.group_chat_messages', 'deleted_at', 'insert')
          and not has_column_privilege('authenticated', 'public.group_chat_messages', 'deleted_by', 'insert')
          and not has_table_privilege('authenticated', 'public.group_chat_messages', 'update')
          and not has_table_privilege('authenticated', 'public.group_chat_messages', 'delete'),
  'a student may neither insert the tombstone columns nor update or delete messages');

-- The sender.
select tests.authenticate_as('member');
select is((public.delete_chat_message((select id from msg where label = 'member_own'))).content, '',
  'the sender deletes her own message and gets back the emptied row');
select tests.authenticate_as('other_member');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'member_kept'))$$,
  'P0091', 'cannot_delete_message', 'another member cannot delete someone else''s message');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'elsewhere'))$$,
  'P0090', 'message_not_found', 'a student outside a group is told the message does not exist');
select throws_ok($$select public.delete_chat_message(gen_random_uuid())$$,
  'P0090', 'message_not_found', 'the same answer as for an id nobody has');
select tests.authenticate_as('global_moderator');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'member_kept'))$$,
  'P0090', 'message_not_found', 'the app-wide moderator role is not an admin');
select tests.clear_authentication();
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'member_kept'))$$,
  '42501', null, 'anon cannot call the RPC');

-- Owner and moderator: inside their group, never outside.
select tests.authenticate_as('owner');
select lives_ok($$select public.delete_chat_message((select id from msg where label = 'member_by_owner'))$$,
  'the owner deletes a member''s message in her group');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'elsewhere'))$$,
  'P0090', 'message_not_found', 'the owner cannot delete a message outside her group');
select tests.authenticate_as('moderator');
select lives_ok($$select public.delete_chat_message((select id from msg where label = 'member_by_moderator'))$$,
  'a moderator deletes a member''s message in her group');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'elsewhere'))$$,
  'P0090', 'message_not_found', 'a moderator cannot delete a message outside her group');

-- An admin anywhere, without being a member.
select tests.authenticate_as('admin');
select lives_ok($$select public.delete_chat_message((select id from msg where label = 'member_by_admin'))$$,
  'an admin deletes a message in a group she is not in');
select lives_ok($$select public.delete_chat_message((select id from msg where label = 'elsewhere'))$$,
  'an admin deletes a message in any group');
select is((public.delete_chat_message((select id from msg where label = 'elsewhere'))).deleted_by, tests.get_user_id('admin'),
  'deleting a tombstone again changes nothing');

-- Direct writes do not get around the RPC.
select tests.authenticate_as('other_member');
select throws_ok($$update public.group_chat_messages set content = 'edited' where id = (select id from msg where label = 'member_kept')$$,
  '42501', null, 'a member cannot update a message directly');
select throws_ok($$delete from public.group_chat_messages where id = (select id from msg where label = 'member_kept')$$,
  '42501', null, 'a member cannot delete a message directly');
select throws_ok($$insert into public.group_chat_messages (group_id, sender_id, content, deleted_at, deleted_by)
  values ((select id from dg where name = 'Delete Group'), tests.get_user_id('other_member'), '', now(), tests.get_user_id('owner'))$$,
  '42501', null, 'a member cannot post a forged tombstone');
select tests.authenticate_as('owner');
select throws_ok($$update public.group_chat_messages set content = '', deleted_at = now() where id = (select id from msg where label = 'member_kept')$$,
  '42501', null, 'an owner cannot update a message directly either');
select tests.authenticate_as_service_role();
select throws_ok($$update public.group_chat_messages set content = '' where id = (select id from msg where label = 'member_kept')$$,
  '23514', null, 'a live message cannot be emptied without becoming a tombstone');

-- What members read.
select tests.authenticate_as('other_member');
select results_eq(
  $$select msg.label, m.content, m.deleted_at is not null, m.deleted_by from public.group_chat_messages m
    join msg using (id) where m.group_id = (select id from dg where name = 'Delete Group') order by msg.label$$,
  $$values ('member_by_admin'::text, ''::text, true, tests.get_user_id('admin')),
           ('member_by_moderator', '', true, tests.get_user_id('moderator')),
           ('member_by_owner', '', true, tests.get_user_id('owner')),
           ('member_kept', 'nobody may remove this', false, null::uuid),
           ('member_own', '', true, tests.get_user_id('member'))$$,
  'members still read the tombstones in place, each with an empty body and who removed it');
select is((select count(*)::int from public.community_get_group_messages((select id from dg where name = 'Delete Group'), 50, null) where deleted_at is not null),
  4, 'the history RPC returns the tombstones too');
select tests.authenticate_as('outsider');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from dg where name = 'Delete Group')),
  0, 'an outsider reads neither messages nor tombstones of a private group');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.group_chat_messages
           where content in ('my own words', 'owner removes this', 'moderator removes this', 'admin removes this', 'in another group')),
  0, 'no deleted body is left anywhere in the table');

-- The audit log: moderation is recorded, a sender deleting her own message is not.
select results_eq(
  $$select actor_id, actor_role, action, target_user_id, target_id from public.admin_audit_log
    where target_table = 'group_chat_messages' order by id$$,
  $$values (tests.get_user_id('owner'), 'group_owner'::text, 'delete_message'::text, tests.get_user_id('member'), (select id::text from msg where label = 'member_by_owner')),
           (tests.get_user_id('moderator'), 'group_moderator', 'delete_message', tests.get_user_id('member'), (select id::text from msg where label = 'member_by_moderator')),
           (tests.get_user_id('admin'), 'admin', 'delete_message', tests.get_user_id('member'), (select id::text from msg where label = 'member_by_admin')),
           (tests.get_user_id('admin'), 'admin', 'delete_message', tests.get_user_id('outsider'), (select id::text from msg where label = 'elsewhere'))$$,
  'each deletion of someone else''s message is in the audit log with who, how and whose');
select is((select count(*)::int from public.admin_audit_log where detail::text ~ 'removes this|own words|another group'),
  0, 'the audit log holds no message body');

-- Roles.
select tests.authenticate_as('owner');
select throws_ok($$select public.community_set_member_role((select id from dg where name = 'Delete Group'),
  tests.get_user_id('member'), 'admin')$$, 'P0004', 'invalid_role', 'a role is owner, moderator or member');
select throws_ok($$select public.community_set_member_role((select id from dg where name = 'Delete Group'),
  tests.get_user_id('owner'), 'moderator')$$, 'P0004', 'cannot_demote_self', 'an owner cannot make herself a moderator');
select lives_ok($$select public.community_set_member_role((select id from dg where name = 'Delete Group'),
  tests.get_user_id('moderator'), 'member')$$, 'an owner takes the moderator role back');
select tests.authenticate_as('moderator');
select throws_ok($$select public.delete_chat_message((select id from msg where label = 'member_kept'))$$,
  'P0091', 'cannot_delete_message', 'a former moderator deletes no one else''s message');
select tests.authenticate_as_service_role();
select lives_ok($$select public.delete_chat_message((select id from msg where label = 'member_kept'))$$,
  'the service role (the console) deletes any message');
select is((select actor_role from public.admin_audit_log order by id desc limit 1), 'service_role',
  'and is recorded as the service role');
select is((select actor_id from public.admin_audit_log order by id desc limit 1), null::uuid,
  'with no account as actor');

select * from finish();
rollback;

-- Groups: creation triggers, the roles table through RPCs and direct writes, and privacy of a
-- private group for a non-member, anon and service_role.
begin;
select plan(40);

select tests.create_user('owner');
select tests.create_user('member');
select tests.create_user('outsider');
select tests.create_user('admin');
insert into public.user_roles (user_id, role) values (tests.get_user_id('admin'), 'super_admin');

-- Creation: one statement, all triggers.
select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Secret Circle', 'private', 'open', tests.get_user_id('owner'));
insert into public.groups (name, created_by) values ('Open Hall', tests.get_user_id('owner'));

select tests.authenticate_as_service_role();
create temp table g as select id, slug, name from public.groups;
grant select on g to public;
select is((select slug from g where name = 'Secret Circle'), 'secret-circle', 'the slug is derived from the name');
select is((select is_public from public.groups where name = 'Secret Circle'), false, 'is_public follows visibility private');
select is((select join_policy from public.groups where name = 'Open Hall'), 'request', 'join_policy defaults to request');
select is((select role from public.group_members where group_id = (select id from g where name = 'Secret Circle')
           and user_id = tests.get_user_id('owner')), 'owner', 'the creator is added as owner');
select ok(public._is_group_member((select id from g where name = 'Secret Circle'), tests.get_user_id('admin')),
  'the super admin is added to every new group');
select is((select member_count from public.groups where name = 'Secret Circle'), 2, 'member_count counts owner and super admin');
select is((select count(*)::int from information_schema.columns where table_schema = 'public' and table_name = 'groups'),
  27, 'groups has exactly 27 columns');

-- Owner edits; slug stable when name unchanged; is_public write syncs visibility.
select tests.authenticate_as('owner');
update public.groups set description = 'quiet', is_public = true where name = 'Secret Circle';
select tests.authenticate_as_service_role();
select is((select visibility from public.groups where name = 'Secret Circle'), 'public', 'writing is_public updates visibility');
select is((select slug from public.groups where name = 'Secret Circle'), 'secret-circle', 'the slug is stable when the name is unchanged');
update public.groups set visibility = 'private' where name = 'Secret Circle';
select is((select is_public from public.groups where name = 'Secret Circle'), false, 'writing visibility updates is_public');

-- A member joins the open private group by direct link.
select tests.authenticate_as('member');
select is(public.community_join_group((select id from g where name = 'Secret Circle')), 'member', 'a member joins an open group by its id');
select is(public.community_join_group((select id from g where name = 'Open Hall')), 'pending', 'joining a request group files a pending request');

-- Member: reads, posts, but none of the owner cells.
select is((select count(*)::int from public.group_members where group_id = (select id from g where name = 'Secret Circle')), 3,
  'a member reads the members of their private group');
select lives_ok($$select public.community_send_group_message((select id from g where name = 'Secret Circle'), 'hello')$$,
  'a member posts a chat message');
select throws_ok($$select public.community_send_group_message((select id from g where name = 'Secret Circle'), '   ')$$,
  'P0004', 'invalid_message', 'a blank message is refused');
select lives_ok($$update public.groups set description = 'hijacked' where name = 'Secret Circle'$$, 'a member''s direct update of group details runs ...');
select throws_ok($$select public.community_create_invite('group', (select id from g where name = 'Secret Circle'), 7)$$,
  'P0003', 'not_group_owner', 'a member cannot create a group invite');
select throws_ok($$select public.community_remove_member((select id from g where name = 'Secret Circle'), tests.get_user_id('owner'))$$,
  'P0003', 'not_group_owner', 'a member cannot remove a member');
select throws_ok($$select public.community_set_member_role((select id from g where name = 'Secret Circle'), tests.get_user_id('member'), 'owner')$$,
  'P0003', 'not_group_owner', 'a member cannot change a role');
select throws_ok($$select public.community_transfer_ownership((select id from g where name = 'Secret Circle'), tests.get_user_id('member'))$$,
  'P0003', 'not_group_owner', 'a member cannot transfer ownership');
select throws_ok($$select public.community_delete_group((select id from g where name = 'Secret Circle'))$$,
  'P0003', 'not_group_owner', 'a member cannot delete the group through the RPC');
select throws_ok($$insert into public.group_members (group_id, user_id, role) values ((select id from g where name = 'Secret Circle'), tests.get_user_id('outsider'), 'owner')$$,
  '42501', null, 'a member cannot insert a membership row directly');
select throws_ok($$update public.group_members set role = 'owner' where user_id = tests.get_user_id('member')$$,
  '42501', null, 'a member cannot promote themselves by a direct update');

select tests.authenticate_as('owner');
select is((select description from public.groups where name = 'Secret Circle'), 'quiet', '... and changes nothing');
update public.groups set member_count = 999 where name = 'Secret Circle';
select is((select member_count from public.groups where name = 'Secret Circle'), 3, 'a direct update of member_count changes nothing, even by the owner');
select throws_ok($$select public.community_leave_group((select id from g where name = 'Open Hall'))$$,
  'P0005', 'last_owner', 'an owner cannot leave before transferring ownership');
select is((select count(*)::int from public.community_join_requests where status = 'pending'), 1, 'the owner sees the pending join request');
select lives_ok($$select public.community_respond_join_request((select id from public.community_join_requests limit 1), true)$$,
  'the owner accepts the join request');
select ok(exists (select 1 from public.group_members where group_id = (select id from g where name = 'Open Hall')
                                                         and user_id = tests.get_user_id('member')),
  'accepting adds the member');

-- Non-member: nothing of the private group, even with its id.
select tests.authenticate_as('outsider');
select is((select count(*)::int from public.groups where id = (select id from g where name = 'Secret Circle')), 0,
  'a non-member cannot read a private group, even with its id');
select is((select count(*)::int from public.group_members where group_id = (select id from g where name = 'Secret Circle')), 0,
  'a non-member cannot read a private group''s members');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from g where name = 'Secret Circle')), 0,
  'a non-member cannot read a private group''s messages, even with its id');
select throws_ok($$select * from public.community_get_group_messages((select id from g where name = 'Secret Circle'))$$,
  'P0001', 'not_group_member', 'a non-member cannot read messages through the RPC');
select throws_ok($$select public.community_send_group_message((select id from g where name = 'Secret Circle'), 'hi')$$,
  'P0001', 'not_group_member', 'a non-member cannot post');
select is((select count(*)::int from unnest(array['Secret Circle', 'secret-circle', 'secret', 'circle', 'SECRET', '']) t(term)
           cross join lateral public.community_discover_groups(t.term, 100, 0) d
           where visibility = 'private'), 0,
  'discovery never shows a private group to a non-member, for its exact name, slug and other terms');
select is((select count(*)::int from public.community_discover_groups('open', 10, 0)), 1, 'discovery shows a public group');

-- Owner role cells that succeed.
select tests.authenticate_as('owner');
select lives_ok($$select public.community_transfer_ownership((select id from g where name = 'Secret Circle'), tests.get_user_id('member'))$$,
  'an owner transfers ownership');
select lives_ok($$select public.community_leave_group((select id from g where name = 'Secret Circle'))$$,
  'after transferring, the former owner leaves');

-- Anon: nothing.
select tests.clear_authentication();
select throws_ok($$select count(*) from public.groups$$, '42501', null, 'anon cannot read groups');
select throws_ok($$select public.community_join_group((select id from g limit 1))$$, '42501', null, 'anon cannot join');

select * from finish();
rollback;

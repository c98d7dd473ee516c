-- The membership helpers answer only about the caller: any signed-in student can call
-- public._is_group_member and public._has_group_role through the Data API, so asking about
-- someone else must not reveal a private group's members or owners. The policies that call them
-- still grant members and owners what they had; service_role and the owner's internals still ask
-- about anyone.
begin;
select plan(22);

select tests.create_user('alice');
select tests.create_user('carol');
select tests.create_user('bob');

select tests.authenticate_as('alice');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Hidden Study', 'private', 'invite', tests.get_user_id('alice'));
reset role;
create temp table hidden as select id from public.groups where name = 'Hidden Study';
grant select on hidden to public;
insert into public.group_members (group_id, user_id, role)
  values ((select id from hidden), tests.get_user_id('carol'), 'member');

-- An outsider asking about members of a private group learns nothing.
select tests.authenticate_as('bob');
select is(public._is_group_member((select id from hidden), tests.get_user_id('alice')), false,
  'an outsider asking whether the owner of a private group is a member gets false');
select is(public._is_group_member((select id from hidden), tests.get_user_id('carol')), false,
  'an outsider asking whether a member of a private group is a member gets false');
select is(public._has_group_role((select id from hidden), tests.get_user_id('alice'), array['owner']), false,
  'an outsider asking whether someone owns a private group gets false');
select is(public._has_group_role((select id from hidden), tests.get_user_id('carol'), array['owner', 'member']), false,
  'an outsider asking for any role of a member gets false');
select is(public._is_group_member((select id from hidden), tests.get_user_id('bob')), false,
  'an outsider asking about himself gets the true answer: not a member');

-- Members ask about themselves, and only about themselves.
select tests.authenticate_as('carol');
select is(public._is_group_member((select id from hidden), tests.get_user_id('carol')), true,
  'a member asking about herself gets true');
select is(public._has_group_role((select id from hidden), tests.get_user_id('carol'), array['member']), true,
  'a member asking for her own role gets true');
select is(public._has_group_role((select id from hidden), tests.get_user_id('alice'), array['owner']), false,
  'a member asking whether someone else is the owner gets false: the helper answers only about the caller');
select is(public._is_group_member((select id from hidden), null), false, 'a null user id is answered with false');

select tests.authenticate_as('alice');
select is(public._has_group_role((select id from hidden), tests.get_user_id('alice'), array['owner']), true,
  'the owner asking about her own ownership gets true');

-- Signed-out callers cannot call the helpers at all.
select tests.clear_authentication();
select throws_ok(format('select public._is_group_member(%L, %L)', (select id from hidden), tests.get_user_id('alice')),
  '42501', null, 'anon cannot call _is_group_member');
select throws_ok(format('select public._has_group_role(%L, %L, %L)', (select id from hidden), tests.get_user_id('alice'), '{owner}'),
  '42501', null, 'anon cannot call _has_group_role');

-- The unrestricted internals are out of the API roles' reach.
reset role;
select ok(not has_function_privilege('authenticated', 'private.is_group_member(uuid, uuid)', 'execute')
          and not has_function_privilege('anon', 'private.is_group_member(uuid, uuid)', 'execute'),
  'no API role executes private.is_group_member');
select ok(not has_function_privilege('authenticated', 'private.has_group_role(uuid, uuid, text[])', 'execute')
          and not has_function_privilege('anon', 'private.has_group_role(uuid, uuid, text[])', 'execute'),
  'no API role executes private.has_group_role');

-- service_role (the admin console) and the database owner may ask about anyone.
select tests.authenticate_as_service_role();
select is(public._has_group_role((select id from hidden), tests.get_user_id('alice'), array['owner']), true,
  'service_role asking about the owner gets the true answer');
reset role;
select is(public._is_group_member((select id from hidden), tests.get_user_id('carol')), true,
  'the database owner asking about a member gets the true answer');

-- The policies built on the helpers still grant what they granted.
select tests.authenticate_as('carol');
select lives_ok($$insert into public.group_chat_messages (group_id, sender_id, content)
                  values ((select id from hidden), auth.uid(), 'hello from carol')$$,
  'a member posts into her group''s chat through the insert policy');
select tests.authenticate_as('alice');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from hidden)), 1,
  'the owner reads the member''s message');
update public.groups set description = 'renamed by the owner' where id = (select id from hidden);
select is((select description from public.groups where id = (select id from hidden)), 'renamed by the owner',
  'the owner edits her group through the update policy');
select tests.authenticate_as('bob');
select throws_ok($$insert into public.group_chat_messages (group_id, sender_id, content)
                   values ((select id from hidden), auth.uid(), 'let me in')$$,
  '42501', null, 'an outsider cannot post into the group''s chat');
update public.groups set description = 'defaced' where id = (select id from hidden);
select tests.authenticate_as_service_role();
select is((select description from public.groups where id = (select id from hidden)), 'renamed by the owner',
  'an outsider''s update of the group changes nothing');

-- A start alert on a group still reaches a subscribed member: the trigger asks about the
-- subscriber, who is not the student starting to study.
select tests.authenticate_as('carol');
select public.community_register_device_token('tok-carol');
select public.community_set_start_alert('group', (select id from hidden));
select tests.authenticate_as('alice');
select public.community_heartbeat('studying');
reset role;
select is((select count(*)::int from public.community_notification_outbox where token = 'tok-carol'), 1,
  'the owner starting to study alerts the member subscribed to the private group');

select * from finish();
rollback;

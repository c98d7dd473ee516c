-- Each community policy on rows one student owns, granted and denied: enrollment (the privacy
-- switches), start alerts, device tokens, presence, join requests, group invites, the group row
-- itself and chat posts. alice owns her rows; bob, a stranger, reads none of them and changes
-- none of them, also with unfiltered updates and deletes (checked against the UPDATE and DELETE
-- policies alone); carol owns a group alice asked to join.
begin;
select plan(35);

select tests.create_user('alice');
select tests.create_user('bob');
select tests.create_user('carol');

select tests.authenticate_as('carol');
select public.community_bootstrap_profile('carol_h');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Carol''s Circle', 'public', 'request', tests.get_user_id('carol'));
select tests.authenticate_as('alice');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Alice''s Den', 'private', 'invite', tests.get_user_id('alice'));
reset role;
create temp table den as
  select (select id from public.groups where name = 'Alice''s Den') as id,
         (select id from public.groups where name = 'Carol''s Circle') as circle;
grant select on den to public;
insert into public.group_members (group_id, user_id, role) values ((select id from den), tests.get_user_id('carol'), 'member');

-- alice's rows, made the way the app makes them.
select tests.authenticate_as('alice');
select public.community_request_buddy('carol_h');
select tests.authenticate_as('carol');
select public.community_respond_buddy(id, true) from public.community_friends where friend_id = auth.uid();
select tests.authenticate_as('alice');
select public.community_set_start_alert('buddy', tests.get_user_id('carol'));
select public.community_register_device_token('tok-alice');
select public.community_heartbeat('studying');
select public.community_join_group((select circle from den));
select public.community_create_invite('group', (select id from den));
select tests.authenticate_as('bob');
select public.community_register_device_token('tok-bob');

-- alice reads her own rows -------------------------------------------------------------------------
select tests.authenticate_as('alice');
select is((select count(*)::int from public.community_enrollments), 1, 'alice reads her enrollment');
select is((select count(*)::int from public.community_start_alerts), 1, 'alice reads her start alert');
select is((select count(*)::int from public.community_device_tokens), 1, 'alice reads her device token');
select is((select count(*)::int from public.user_presence), 1, 'alice reads her presence');
select is((select count(*)::int from public.community_join_requests), 1, 'alice reads her join request');
select is((select count(*)::int from public.group_invites), 1, 'alice, an owner, reads her group''s invites');

-- bob reads none of them -----------------------------------------------------------------------
select tests.authenticate_as('bob');
select is((select count(*)::int from public.community_enrollments where user_id = tests.get_user_id('alice')), 0,
  'bob cannot read alice''s enrollment and privacy switches');
select is((select count(*)::int from public.community_start_alerts), 0, 'bob cannot read alice''s start alerts');
select is((select count(*)::int from public.community_device_tokens where user_id = tests.get_user_id('alice')), 0,
  'bob cannot read alice''s device tokens');
select is((select count(*)::int from public.user_presence), 0, 'bob cannot read alice''s presence');
select is((select count(*)::int from public.community_join_requests), 0, 'bob cannot read alice''s join request');
select is((select count(*)::int from public.group_invites), 0, 'bob cannot read the invites of alice''s group');

-- carol, the owner of the group alice asked to join, reads that request and no invite of alice's.
select tests.authenticate_as('carol');
select is((select count(*)::int from public.community_join_requests where user_id = tests.get_user_id('alice')), 1,
  'the owner of the requested group reads alice''s join request');
select is((select count(*)::int from public.group_invites), 0, 'a member of alice''s group cannot read its invites');

-- bob's unfiltered writes ------------------------------------------------------------------------
select tests.authenticate_as('bob');
select lives_ok($$update public.community_enrollments set consent = true, privacy = '{"stealthMode": true, "shareTasks": true,
                  "shareSubjectBreakdown": true, "shareQuestionCounts": true, "shareExactTime": false, "shareCurrentSubject": true}'$$,
  'bob''s unfiltered update of enrollments runs ...');
select lives_ok($$delete from public.community_device_tokens$$, 'bob''s unfiltered delete of device tokens runs ...');
select lives_ok($$update public.groups set description = 'defaced'$$, 'bob''s unfiltered update of groups runs ...');
select lives_ok($$delete from public.groups$$, 'bob''s unfiltered delete of groups runs ...');
select throws_ok(format('update public.community_enrollments set user_id = %L', tests.get_user_id('alice')), '42501', null,
  'bob cannot move his enrollment onto alice''s id');

select tests.authenticate_as_service_role();
select is((select consent::text || ' ' || (privacy ->> 'stealthMode') || ' ' || (privacy ->> 'shareExactTime')
           from public.community_enrollments where user_id = tests.get_user_id('alice')), 'false false true',
  '... and alice''s consent and privacy switches are unchanged');
select is((select consent from public.community_enrollments where user_id = tests.get_user_id('bob')), true,
  '... while bob''s own enrollment did change, so the statement ran');
select is((select array_agg(token) from public.community_device_tokens), array['tok-alice'],
  '... and alice''s device token survives while bob''s own is deleted');
select is((select count(*)::int from public.groups where description = 'defaced'), 0, '... and no group is defaced');
select is((select count(*)::int from public.groups), 2, '... and no group is deleted');

-- Acting in someone else's name ------------------------------------------------------------------
select tests.authenticate_as('carol');
select throws_ok($$insert into public.group_chat_messages (group_id, sender_id, content)
                   select id, tests.get_user_id('alice'), 'posted as alice' from den$$, '42501', null,
  'a member cannot post into her group''s chat as someone else');
select lives_ok($$insert into public.group_chat_messages (group_id, sender_id, content)
                  select id, auth.uid(), 'posted as carol' from den$$, 'a member posts into her group''s chat as herself');
select tests.authenticate_as('bob');
select throws_ok($$insert into public.group_chat_messages (group_id, sender_id, content)
                   select id, tests.get_user_id('alice'), 'posted as alice' from den$$, '42501', null,
  'an outsider cannot post into a group he is not in, as its owner');
-- A signed-in session without a user id (a token with no sub) cannot create a group in another's
-- name: the trigger keeps the given creator only when there is no caller, and the policy refuses it.
select set_config('request.jwt.claims', '{"role": "authenticated"}', true);
select throws_ok(format('insert into public.groups (name, created_by) values (%L, %L)', 'Forged', tests.get_user_id('alice')),
  '42501', null, 'a session without a user id cannot create a group owned by alice');

-- alice changes and deletes her own --------------------------------------------------------------
select tests.authenticate_as('alice');
select lives_ok($$update public.community_enrollments set privacy = privacy || '{"shareTasks": true}'$$,
  'alice switches on shareTasks with an unfiltered update');
-- Unfiltered, so only the UPDATE policy's WITH CHECK judges the new row (a WHERE would add the
-- SELECT policy, which refuses the new id too).
select throws_ok($$update public.groups set id = gen_random_uuid()$$, '42501', null,
  'alice cannot re-key her group onto an id she does not own');
select lives_ok($$delete from public.community_device_tokens$$, 'alice deletes her device tokens with an unfiltered delete');
select lives_ok($$delete from public.groups where name = 'Alice''s Den'$$, 'alice deletes her group directly');
select tests.authenticate_as_service_role();
select is((select (privacy ->> 'shareTasks')::boolean from public.community_enrollments where user_id = tests.get_user_id('alice')), true,
  '... and her switch is on');
select is((select count(*)::int from public.community_device_tokens), 0, '... and her device token is gone');
select is((select array_agg(name) from public.groups), array['Carol''s Circle'], '... and her group is gone');

select * from finish();
rollback;

-- The paths that cross into the groups issue: a buddy invite redeemed becomes a friendship through
-- private.connect_buddies, and group start alerts follow group membership.
begin;
select plan(11);

select tests.create_user('inv');
select tests.create_user('red');
select tests.create_user('blo');

-- Buddy invite -> accepted friendship.
select tests.authenticate_as('inv');
create temp table tok as select public.community_create_invite('buddy', null, 7) as token;
grant select on tok to public;
select tests.authenticate_as('red');
select lives_ok($$select public.community_redeem_invite((select token from tok))$$, 'redeeming a buddy invite works');
select is((select status from public.community_friends
  where tests.get_user_id('red') in (user_id, friend_id) and tests.get_user_id('inv') in (user_id, friend_id)),
  'accepted', 'a redeemed buddy invite is an accepted friendship');
select isnt((select accepted_at from public.community_friends where tests.get_user_id('red') in (user_id, friend_id)),
  null, 'with accepted_at set');

-- connect_buddies directly: self, blocked, and a pending request accepted.
reset role;
select throws_ok(format('select private.connect_buddies(%L, %L)', tests.get_user_id('inv'), tests.get_user_id('inv')),
  'P0020', 'cannot_befriend_self', 'connect_buddies refuses the same user twice');
select tests.authenticate_as('blo');
select public.community_remove_buddy(tests.get_user_id('inv'), true);
reset role;
select throws_ok(format('select private.connect_buddies(%L, %L)', tests.get_user_id('inv'), tests.get_user_id('blo')),
  'P0002', 'user_not_found', 'a block answers like an unknown user');
select tests.authenticate_as('red');
select throws_ok(format('select private.connect_buddies(%L, %L)', tests.get_user_id('inv'), tests.get_user_id('red')),
  '42501', null, 'users cannot call connect_buddies');

-- Group alerts: a member subscribed to the group is alerted; after leaving, not any more.
select tests.create_user('own');
select tests.create_user('mem');
select tests.authenticate_as('own');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Alert Hall', 'public', 'open', tests.get_user_id('own'));
reset role;
insert into public.group_members (group_id, user_id, role)
  select id, tests.get_user_id('mem'), 'member' from public.groups where name = 'Alert Hall';
create temp table grp as select id from public.groups where name = 'Alert Hall';
grant select on grp to public;
select tests.authenticate_as('mem');
select public.community_register_device_token('tok-mem');
select is(public.community_set_start_alert('group', (select id from grp)) ->> 'targetType', 'group',
  'a member subscribes to their group');
select tests.authenticate_as('red');
select throws_ok(format('select public.community_set_start_alert(%L, %L)', 'group', (select id from grp)),
  'P0062', 'target_not_found', 'a non-member cannot subscribe to a group');
select tests.authenticate_as('own');
select public.community_heartbeat('studying');
reset role;
select is((select count(*)::int from public.community_notification_outbox where token = 'tok-mem'), 1,
  'a group member starting to study alerts the subscribed member');
select is((select payload ->> 'target_type' from public.community_notification_outbox where token = 'tok-mem'),
  'group', 'the payload names the group target');
delete from public.group_members where user_id = tests.get_user_id('mem');
select tests.authenticate_as('own');
select public.community_heartbeat('idle');
select public.community_heartbeat('studying');
reset role;
select is((select count(*)::int from public.community_notification_outbox where token = 'tok-mem'), 1,
  'after leaving the group the former member is not alerted');

select * from finish();
rollback;

-- The buddy state machine: allowed transitions work, every other one raises.
begin;
select plan(22);

select tests.create_user('ann');
select tests.create_user('bob');
select tests.create_user('cat');
select tests.authenticate_as('bob');
select public.community_bootstrap_profile('bob_h');
select tests.authenticate_as('cat');
select public.community_bootstrap_profile('cat_h');
reset role;
-- A handle only in profile_data (an older client wrote it there).
update public.user_profiles set profile_data = '{"community_handle": "ann_legacy"}'
  where user_id = tests.get_user_id('ann');

-- Lookup keys, each absent and present.
select tests.authenticate_as('bob');
select throws_ok($$select public.community_request_buddy('nobody_h')$$, 'P0002', 'user_not_found',
  'an unknown handle column value raises user_not_found');
select throws_ok($$select public.community_request_buddy('nobody_legacy')$$, 'P0002', 'user_not_found',
  'an unknown profile_data community_handle raises user_not_found');
select throws_ok($$select public.community_request_buddy('nobody@test.local')$$, 'P0002', 'user_not_found',
  'an unknown username raises user_not_found');
select throws_ok($$select public.community_request_buddy('bob_h')$$, 'P0020', 'cannot_befriend_self',
  'a request to yourself raises');

-- pending -> accepted
select isnt(public.community_request_buddy('ANN_LEGACY'), null, 'a request by profile_data handle works');
select throws_ok($$select public.community_request_buddy('ann@test.local')$$, 'P0022', 'request_pending',
  'a duplicate request raises');
select throws_ok(format('select public.community_respond_buddy(%L, true)',
  (select id from public.community_friends where user_id = tests.get_user_id('bob'))),
  'P0023', 'request_not_found', 'the sender cannot answer their own request');
select tests.authenticate_as('ann');
select is(public.community_respond_buddy(
  (select id from public.community_friends where friend_id = tests.get_user_id('ann')), true), 'accepted',
  'the recipient accepts');
select isnt((select accepted_at from public.community_friends where friend_id = tests.get_user_id('ann')), null,
  'accepted_at is set on accept');
select throws_ok(format('select public.community_respond_buddy(%L, false)',
  (select id from public.community_friends where friend_id = tests.get_user_id('ann'))),
  'P0023', 'request_not_found', 'answering twice raises');
select throws_ok($$select public.community_request_buddy('bob_h')$$, 'P0021', 'already_buddies',
  'a request between buddies raises');

-- pending -> declined, then asked again
select tests.authenticate_as('cat');
select isnt(public.community_request_buddy('bob@test.local'), null, 'a request by username works');
select tests.authenticate_as('bob');
select is(public.community_respond_buddy(
  (select id from public.community_friends where user_id = tests.get_user_id('cat')), false), 'declined',
  'the recipient declines');
select tests.authenticate_as('cat');
select is((select status from public.community_friends where user_id = tests.get_user_id('cat')), 'declined',
  'the sender sees the decline');
select lives_ok($$select public.community_request_buddy('bob_h')$$, 'a declined request may be asked again');

-- remove and block
select tests.authenticate_as('ann');
select is(public.community_remove_buddy(tests.get_user_id('bob'), false), 'removed', 'either party removes');
select is((select count(*)::int from public.community_friends where tests.get_user_id('ann') in (user_id, friend_id)),
  0, 'the connection is gone');
select is(public.community_remove_buddy(tests.get_user_id('bob'), true), 'blocked', 'a user blocks another');
select tests.authenticate_as('bob');
select throws_ok($$select public.community_request_buddy('ann@test.local')$$, 'P0002', 'user_not_found',
  'a request to someone who blocked you reads like an unknown user');
select is((select count(*)::int from public.community_friends where tests.get_user_id('ann') in (user_id, friend_id)),
  0, 'the blocked side cannot see the block row');
select tests.authenticate_as('ann');
select throws_ok($$select public.community_request_buddy('bob_h')$$, 'P0002', 'user_not_found',
  'the blocker cannot request either while the block stands');
select throws_ok($$insert into public.community_friends (user_id, friend_id, status)
  values (tests.get_user_id('ann'), tests.get_user_id('cat'), 'accepted')$$, '42501', null,
  'nobody writes community_friends directly');

select * from finish();
rollback;

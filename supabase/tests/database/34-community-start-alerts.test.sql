-- Start alerts: quiet hours (within a day, across midnight, positive and negative offsets), the
-- outbox rows a studying transition writes, and who no longer gets one.
begin;
select plan(21);

-- Quiet windows, each with an instant inside and one outside.
select ok(private.in_quiet_hours('13:00', '15:00', 0, '2026-03-10 14:00+00'), 'window within a day: inside');
select ok(not private.in_quiet_hours('13:00', '15:00', 0, '2026-03-10 15:00+00'), 'window within a day: outside (end excluded)');
select ok(private.in_quiet_hours('22:00', '07:00', 0, '2026-03-10 23:30+00'), 'crossing midnight: inside before midnight');
select ok(private.in_quiet_hours('22:00', '07:00', 0, '2026-03-10 06:59+00'), 'crossing midnight: inside after midnight');
select ok(not private.in_quiet_hours('22:00', '07:00', 0, '2026-03-10 12:00+00'), 'crossing midnight: outside');
select ok(private.in_quiet_hours('22:00', '07:00', 120, '2026-03-10 20:30+00'),
  'positive offset (UTC+2): 20:30 UTC is 22:30 local, inside');
select ok(not private.in_quiet_hours('22:00', '07:00', 120, '2026-03-10 05:30+00'),
  'positive offset (UTC+2): 05:30 UTC is 07:30 local, outside');
select ok(private.in_quiet_hours('22:00', '07:00', -300, '2026-03-10 04:00+00'),
  'negative offset (UTC-5): 04:00 UTC is 23:00 local, inside');
select ok(not private.in_quiet_hours('22:00', '07:00', -300, '2026-03-10 23:00+00'),
  'negative offset (UTC-5): 23:00 UTC is 18:00 local, outside');
select ok(not private.in_quiet_hours(null, null, 0, now()), 'no window: never quiet');

-- Actor and subscribers.
select tests.create_user('act');
select tests.create_user('sub');
select tests.create_user('qui');
select tests.create_user('ex');
select tests.authenticate_as('act');
select public.community_bootstrap_profile('act_h');
select tests.authenticate_as('sub');
select public.community_request_buddy('act_h');
select tests.authenticate_as('qui');
select public.community_request_buddy('act_h');
select tests.authenticate_as('ex');
select public.community_request_buddy('act_h');
select tests.authenticate_as('act');
select public.community_respond_buddy(id, true) from public.community_friends where friend_id = auth.uid();

select tests.authenticate_as('sub');
select public.community_register_device_token('tok-sub-1');
select public.community_register_device_token('tok-sub-2');
select lives_ok($$select public.community_register_device_token('tok-sub-2')$$, 'registering a token twice is idempotent');
select is(public.community_set_start_alert('buddy', tests.get_user_id('act')) ->> 'enabled', 'true',
  'a buddy alert is created');
select tests.authenticate_as('qui');
select public.community_register_device_token('tok-qui');
-- Quiet all day long except one minute: always inside for the test's now().
select public.community_set_start_alert('buddy', tests.get_user_id('act'),
  ((now() at time zone 'UTC') - interval '1 hour')::time, ((now() at time zone 'UTC') + interval '1 hour')::time, 0);
select is(public.community_get_start_alert('buddy', tests.get_user_id('act')) ->> 'timezoneOffsetMinutes', '0',
  'community_get_start_alert reads the setting');
select tests.authenticate_as('ex');
select public.community_register_device_token('tok-ex');
select public.community_set_start_alert('buddy', tests.get_user_id('act'));
select public.community_remove_buddy(tests.get_user_id('act'), false);
select tests.authenticate_as('sub');
select throws_ok(format('select public.community_set_start_alert(%L, %L)', 'buddy', tests.get_user_id('ex')),
  'P0062', 'target_not_found', 'no alert for someone who is not a buddy');

select tests.authenticate_as('act');
select public.community_heartbeat('studying');
reset role;
select is((select array_agg(token order by token) from public.community_notification_outbox),
  array['tok-sub-1', 'tok-sub-2'], 'entering studying writes one row per subscriber token; quiet and ex-buddy get none');
select is((select payload #>> '{actor,handle}' from public.community_notification_outbox limit 1), 'act_h',
  'the payload names the actor');
select tests.authenticate_as('act');
select public.community_heartbeat('studying');
reset role;
select is((select count(*)::int from public.community_notification_outbox), 2, 'staying in studying writes nothing more');

-- Quiet hours moved out of the way by sync: the quiet subscriber now gets one.
select tests.authenticate_as('qui');
select is(public.community_sync_quiet_hours(null, null, 0), 1, 'sync applies one window to all the caller''s alerts');
select tests.authenticate_as('act');
select public.community_heartbeat('break');
select public.community_heartbeat('studying');
reset role;
select is((select count(*)::int from public.community_notification_outbox where token = 'tok-qui'), 1,
  'outside quiet hours the subscriber is alerted');

select tests.authenticate_as('sub');
select throws_ok('select * from public.community_notification_outbox', '42501', null, 'users cannot read the outbox');
reset role;
select tests.authenticate_as('sub');
select public.community_register_device_token('t' || g) from generate_series(1, 12) g;
select is((select count(*)::int from public.community_device_tokens), 10, 'at most ten tokens per user, oldest dropped');

select * from finish();
rollback;

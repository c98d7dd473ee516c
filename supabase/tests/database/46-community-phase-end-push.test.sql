-- Phase-end pushes: a signed-in student schedules one push per own device for the end of her
-- running phase; a new call replaces the last, null cancels; anon cannot, nobody reaches another
-- student's devices, bad phases and times are refused; the row is due at the phase end and is
-- given up when its token is gone.
begin;
select plan(17);

select tests.create_user('ada');
select tests.create_user('bo');
select tests.authenticate_as('ada');
select public.community_register_device_token('tok-ada-1');
select public.community_register_device_token('tok-ada-2');
select tests.authenticate_as('bo');
select public.community_register_device_token('tok-bo');

select is(has_function_privilege('anon', 'public.community_schedule_phase_end(text, timestamptz)', 'execute'),
  false, 'anon may not execute community_schedule_phase_end');
select tests.clear_authentication();
select throws_ok($$select public.community_schedule_phase_end('focus', now() + interval '25 minutes')$$,
  '42501', null, 'anon calling it is refused');

select tests.authenticate_as('ada');
select is(public.community_schedule_phase_end('focus', now() + interval '25 minutes'), 2,
  'one row per device of the caller');
select throws_ok($$select public.community_schedule_phase_end('lunch', now() + interval '5 minutes')$$,
  'P0073', 'invalid_phase_end', 'a phase that is neither focus nor break is refused');
select throws_ok($$select public.community_schedule_phase_end('focus', now() + interval '2 days')$$,
  'P0073', 'invalid_phase_end', 'an end more than a day away is refused');
select throws_ok($$select public.community_schedule_phase_end('break', now() - interval '1 hour')$$,
  'P0073', 'invalid_phase_end', 'an end long past is refused');
select is(public.community_schedule_phase_end('break', now() + interval '5 minutes'), 2,
  'a second call replaces the first');

select tests.authenticate_as_service_role();
select is((select count(*)::int from public.community_notification_outbox
           where recipient_id = tests.get_user_id('ada') and payload ->> 'type' = 'phase_end'), 2,
  'only the newest schedule is queued');
select is((select array_agg(distinct payload ->> 'phase') from public.community_notification_outbox
           where recipient_id = tests.get_user_id('ada')), array['break'],
  'the rows name the phase that ends');
select is((select array_agg(token order by token) from public.community_notification_outbox
           where recipient_id = tests.get_user_id('ada')), array['tok-ada-1', 'tok-ada-2'],
  'the rows go to her own devices');
select is((select count(*)::int from public.community_notification_outbox
           where recipient_id = tests.get_user_id('bo')), 0, 'nothing reaches another student');
select is((public.community_claim_push_batch(50, 120, 8, 3600) -> 'rows'), '[]'::jsonb,
  'a phase-end row is not due before its phase ends');

-- Due now: bring one of her rows forward, and unregister the other's token.
update public.community_notification_outbox set next_attempt_at = now(), created_at = now()
  where recipient_id = tests.get_user_id('ada');
delete from public.community_device_tokens where token = 'tok-ada-2';
select is((select jsonb_agg(r -> 'token') from jsonb_array_elements(
             public.community_claim_push_batch(50, 120, 8, 3600) -> 'rows') r), '["tok-ada-1"]'::jsonb,
  'a due row goes out while its token is registered');
select is((select last_error from public.community_notification_outbox where token = 'tok-ada-2'), 'suppressed',
  'a row whose token was removed is given up');

-- The page posts the break as the focus phase ends: the push due now stays.
update public.community_notification_outbox set claim_id = null, next_attempt_at = now()
  where token = 'tok-ada-1';
select tests.authenticate_as('ada');
select public.community_schedule_phase_end('break', now() + interval '5 minutes');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.community_notification_outbox
           where recipient_id = tests.get_user_id('ada') and next_attempt_at <= now()
             and delivered_at is null and failed_at is null), 1,
  'scheduling the next phase keeps the push of the phase ending now');

select tests.authenticate_as('ada');
select public.community_schedule_phase_end('focus', now() + interval '25 minutes');
select is(public.community_schedule_phase_end('focus', null), 0, 'null cancels');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.community_notification_outbox
           where recipient_id = tests.get_user_id('ada') and delivered_at is null and failed_at is null
             and claim_id is null), 0, 'nothing pending is left after a cancel');

select * from finish();
rollback;

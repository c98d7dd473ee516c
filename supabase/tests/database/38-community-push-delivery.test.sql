-- Push delivery: only the service role may claim and settle outbox rows; a claim leases rows and
-- counts attempts, leased rows stay hidden until the lease ends, settling needs the current claim,
-- failures retry later or give up, gone tokens are removed, and rows no longer wanted are given up.
-- Start alerts carry the subject only when shared, and stealth sets off none.
begin;
select plan(49);

-- Who may call the delivery RPCs ----------------------------------------------------------------

create temp table delivery_rpcs (signature regprocedure);
insert into delivery_rpcs values
  ('public.community_claim_push_batch(integer, integer, integer, integer)'),
  ('public.community_mark_push_sent(uuid, uuid[])'),
  ('public.community_mark_push_failed(uuid, uuid, text, integer)'),
  ('public.community_remove_push_token(uuid, uuid, text)'),
  ('public.community_release_push_claim(uuid, uuid[])'),
  ('public.community_prune_push_outbox(integer)');
grant select on delivery_rpcs to anon, authenticated, service_role;

select is(array(select signature::text from delivery_rpcs
                where has_function_privilege('anon', signature, 'execute')
                   or has_function_privilege('authenticated', signature, 'execute')),
  '{}'::text[], 'neither anon nor a signed-in student may execute any delivery RPC');
select is(array(select signature::text from delivery_rpcs
                where not has_function_privilege('service_role', signature, 'execute')),
  '{}'::text[], 'the service role executes every delivery RPC');
select is(array(select p.oid::regprocedure::text from pg_proc p
                where p.oid in (select signature from delivery_rpcs)
                  and (not p.prosecdef or not coalesce(p.proconfig, '{}') @> array['search_path=""'])),
  '{}'::text[], 'the delivery RPCs are security definer with an empty search_path');

-- People: act studies; sub follows act's start alerts on one device.
select tests.create_user('act');
select tests.create_user('sub');
select tests.authenticate_as('act');
select public.community_bootstrap_profile('act_h');
select tests.authenticate_as('sub');
select public.community_request_buddy('act_h');
select tests.authenticate_as('act');
select public.community_respond_buddy(id, true) from public.community_friends where friend_id = auth.uid();
select tests.authenticate_as('sub');
select public.community_register_device_token('tok-sub');
select public.community_set_start_alert('buddy', tests.get_user_id('act'));

select tests.clear_authentication();
select throws_ok('select public.community_claim_push_batch()', '42501', null,
  'anon calling the claim RPC is refused');
select tests.authenticate_as('sub');
select throws_ok('select public.community_claim_push_batch()', '42501', null,
  'a signed-in student calling the claim RPC is refused');
select throws_ok(format('select public.community_mark_push_sent(%L, array[%L]::uuid[])', gen_random_uuid(), gen_random_uuid()),
  '42501', null, 'a signed-in student cannot mark rows sent');
select throws_ok(format('select public.community_remove_push_token(%L, %L, %L)', gen_random_uuid(), gen_random_uuid(), 'x'),
  '42501', null, 'a signed-in student cannot remove tokens through the delivery RPC');
select throws_ok('select * from public.community_notification_outbox', '42501', null,
  'a signed-in student still cannot read the outbox');

-- Queueing: subject and stealth ------------------------------------------------------------------

select tests.authenticate_as('act');
select public.community_heartbeat('studying', 's1', 'Anatomy');
reset role;
select is((select payload -> 'subject' from public.community_notification_outbox where token = 'tok-sub'),
  'null'::jsonb, 'a start alert names no subject while the actor does not share the current subject');
select is((select (attempts, failed_at, claim_id) from public.community_notification_outbox where token = 'tok-sub'),
  row(0, null::timestamptz, null::uuid), 'a new row has no attempt, no failure and no claim');
delete from public.community_notification_outbox;

select tests.authenticate_as('act');
update public.community_enrollments set privacy = jsonb_set(privacy, '{shareCurrentSubject}', 'true') where user_id = auth.uid();
select public.community_heartbeat('break');
select public.community_heartbeat('studying', 's1', 'Anatomy');
reset role;
select is((select payload ->> 'subject' from public.community_notification_outbox where token = 'tok-sub'),
  'Anatomy', 'a start alert names the subject the actor shares');
select is((select payload #>> '{actor,handle}' from public.community_notification_outbox where token = 'tok-sub'),
  'act_h', 'the payload still names the actor');
delete from public.community_notification_outbox;

select tests.authenticate_as('act');
update public.community_enrollments set privacy = jsonb_set(privacy, '{stealthMode}', 'true') where user_id = auth.uid();
select public.community_heartbeat('break');
select public.community_heartbeat('studying', 's1', 'Anatomy');
reset role;
select is((select count(*)::int from public.community_notification_outbox), 0,
  'a student in stealth mode sets off no start alert');
select tests.authenticate_as('act');
update public.community_enrollments set privacy = jsonb_set(privacy, '{stealthMode}', 'false') where user_id = auth.uid();
select public.community_heartbeat('break');
select public.community_heartbeat('studying', 's1', 'Anatomy');
reset role;
select is((select count(*)::int from public.community_notification_outbox), 1, 'leaving stealth, alerts are queued again');

-- Claims and leases ------------------------------------------------------------------------------

select tests.authenticate_as_service_role();
create temp table claims (name text primary key, body jsonb);
grant all on claims to service_role;
insert into claims select 'first', public.community_claim_push_batch(10, 60);
select is((select jsonb_array_length(body -> 'rows') from claims where name = 'first'), 1, 'a claim returns the due row');
select is((select body #>> '{rows,0,token}' from claims where name = 'first'), 'tok-sub', 'the claimed row carries the token');
select is((select (body #>> '{rows,0,attempts}')::int from claims where name = 'first'), 1, 'claiming counts an attempt');
select ok((select (body ->> 'claim_id') is not null from claims where name = 'first'), 'the claim has an id');
select is((select next_attempt_at from public.community_notification_outbox),
  now() + interval '60 seconds', 'a claimed row is hidden until its lease ends');
select is(jsonb_array_length(public.community_claim_push_batch(10, 60) -> 'rows'), 0,
  'a second claim does not get a leased row');

-- The lease ends (a crashed gateway): the row comes back under a new claim with a second attempt.
reset role;
update public.community_notification_outbox set next_attempt_at = now() - interval '1 second';
select tests.authenticate_as_service_role();
insert into claims select 'second', public.community_claim_push_batch(10, 60);
select is((select (body #>> '{rows,0,attempts}')::int from claims where name = 'second'), 2,
  'after the lease ends the row is claimed again, as a second attempt');
select is(public.community_mark_push_sent((select (body ->> 'claim_id')::uuid from claims where name = 'first'),
                                          array[(select (body #>> '{rows,0,id}')::uuid from claims where name = 'first')]),
  0, 'the first claimer, whose lease ended, cannot mark the row sent');
select is(public.community_mark_push_failed((select (body ->> 'claim_id')::uuid from claims where name = 'first'),
                                            (select (body #>> '{rows,0,id}')::uuid from claims where name = 'first'), 'late', 5),
  '{"outcome": "not_claimed"}'::jsonb, 'nor mark it failed');
select is(public.community_mark_push_sent((select (body ->> 'claim_id')::uuid from claims where name = 'second'),
                                          array[(select (body #>> '{rows,0,id}')::uuid from claims where name = 'second')]),
  1, 'the current claimer marks it sent');
reset role;
select is((select (delivered_at is not null, claim_id) from public.community_notification_outbox),
  row(true, null::uuid), 'a sent row is delivered and no longer claimed');
select tests.authenticate_as_service_role();
select is(jsonb_array_length(public.community_claim_push_batch(10, 60) -> 'rows'), 0, 'a sent row is never claimed again');

-- Failures: retry later, or give up ---------------------------------------------------------------

reset role;
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now());
select tests.authenticate_as_service_role();
insert into claims select 'retry', public.community_claim_push_batch(10, 60);
select is(public.community_mark_push_failed((select (body ->> 'claim_id')::uuid from claims where name = 'retry'),
                                            (select (body #>> '{rows,0,id}')::uuid from claims where name = 'retry'),
                                            'push service answered 500', 30),
  jsonb_build_object('outcome', 'retry', 'next_attempt_at', now() + interval '30 seconds'),
  'a failure with a retry time schedules the next attempt');
select is(jsonb_array_length(public.community_claim_push_batch(10, 60) -> 'rows'), 0, 'a row waiting to retry is not claimed early');
reset role;
select is((select (last_error, failed_at) from public.community_notification_outbox),
  row('push service answered 500'::text, null::timestamptz), 'the error is kept and the row is still pending');
update public.community_notification_outbox set next_attempt_at = now();
select tests.authenticate_as_service_role();
insert into claims select 'give-up', public.community_claim_push_batch(10, 60);
select is(public.community_mark_push_failed((select (body ->> 'claim_id')::uuid from claims where name = 'give-up'),
                                            (select (body #>> '{rows,0,id}')::uuid from claims where name = 'give-up'),
                                            'invalid_subscription'),
  '{"outcome": "failed", "next_attempt_at": null}'::jsonb, 'a failure without a retry time gives the row up');
reset role;
update public.community_notification_outbox set next_attempt_at = now() - interval '1 hour';
select tests.authenticate_as_service_role();
select is(jsonb_array_length(public.community_claim_push_batch(10, 60) -> 'rows'), 0, 'a row given up is never claimed again');
select throws_ok(format('select public.community_mark_push_failed(%L, %L, %L, %s)', gen_random_uuid(), gen_random_uuid(), 'x', 90000),
  'P0071', 'invalid_retry', 'a retry more than a day away is refused');
select throws_ok('select public.community_claim_push_batch(0)', 'P0070', 'invalid_claim', 'a claim of no rows is refused');

-- Release: a stopping gateway hands rows back without counting the attempt.
reset role;
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now());
select tests.authenticate_as_service_role();
insert into claims select 'release', public.community_claim_push_batch(10, 60);
select is(public.community_release_push_claim((select (body ->> 'claim_id')::uuid from claims where name = 'release'),
                                              array[(select (body #>> '{rows,0,id}')::uuid from claims where name = 'release')]),
  1, 'a claimer releases its unsent row');
select is((public.community_claim_push_batch(10, 60) #>> '{rows,0,attempts}')::int, 1,
  'a released row is claimable at once and the release did not count as an attempt');

-- Gone tokens ------------------------------------------------------------------------------------

reset role;
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now() - n * interval '1 second')
  from generate_series(1, 2) n;
select tests.authenticate_as_service_role();
insert into claims select 'gone', public.community_claim_push_batch(1, 60);
select ok(public.community_remove_push_token((select (body ->> 'claim_id')::uuid from claims where name = 'gone'),
                                             (select (body #>> '{rows,0,id}')::uuid from claims where name = 'gone'),
                                             'push service answered 410'),
  'a gone subscription is reported for a claimed row');
reset role;
select is((select count(*)::int from public.community_device_tokens where token = 'tok-sub'), 0,
  'the device token the push service called gone is removed');
select tests.authenticate_as_service_role();
select is(public.community_claim_push_batch(10, 60) -> 'rows', '[]'::jsonb,
  'the other row queued for that token is not sent');
reset role;
select is((select array_agg(last_error order by last_error) from public.community_notification_outbox),
  array['push service answered 410', 'suppressed'], 'both rows are given up, each with its reason');
select throws_ok(format('select public.community_remove_push_token(%L, %L, %L)', gen_random_uuid(), gen_random_uuid(), ''),
  'P0070', 'invalid_claim', 'removing a token needs a reason');

-- Rows no longer wanted, too old or out of attempts are given up at claim time ---------------------

select tests.authenticate_as('sub');
select public.community_register_device_token('tok-sub');
reset role;
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload, created_at, attempts)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now(), 'case', c.name),
    now() - c.age, c.attempts
  from (values ('fresh', interval '0', 0), ('old', interval '2 hours', 0), ('tired', interval '0', 8)) c(name, age, attempts);
select tests.authenticate_as_service_role();
select is((select array_agg(r #>> '{payload,case}') from jsonb_array_elements(public.community_claim_push_batch(10, 60) -> 'rows') r),
  array['fresh'], 'only the fresh row with attempts left is claimed');
reset role;
select is((select array_agg(payload ->> 'case' || ':' || last_error order by payload ->> 'case')
           from public.community_notification_outbox where failed_at is not null),
  array['old:expired', 'tired:attempts_exhausted'], 'a row past the maximum age expires and one out of attempts is given up');

-- Quiet hours begin after the row was queued: nothing is sent.
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now());
select tests.authenticate_as('sub');
select public.community_sync_quiet_hours(((now() at time zone 'UTC') - interval '1 hour')::time,
                                         ((now() at time zone 'UTC') + interval '1 hour')::time, 0);
select tests.authenticate_as_service_role();
select is(public.community_claim_push_batch(10, 60) -> 'rows', '[]'::jsonb,
  'a row that comes due inside the recipient''s quiet hours is not sent');
select tests.authenticate_as('sub');
select public.community_sync_quiet_hours(null, null, 0);
reset role;
select is((select last_error from public.community_notification_outbox), 'suppressed', 'it is given up as suppressed');

-- An alert the recipient turned off, and one whose buddy was removed.
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  select tests.get_user_id('sub'), 'tok-sub', jsonb_build_object('type', 'start_alert',
    'actor', jsonb_build_object('id', tests.get_user_id('act'), 'handle', 'act_h'),
    'target_type', 'buddy', 'target_id', tests.get_user_id('act'), 'started_at', now());
select tests.authenticate_as('sub');
select public.community_set_start_alert('buddy', tests.get_user_id('act'), p_enabled => false);
select tests.authenticate_as_service_role();
select is(public.community_claim_push_batch(10, 60) -> 'rows', '[]'::jsonb, 'a row for an alert turned off since is not sent');
-- A malformed row (not written by the trigger) is given up, not left to block the queue.
reset role;
delete from public.community_notification_outbox;
insert into public.community_notification_outbox (recipient_id, token, payload)
  values (tests.get_user_id('sub'), 'tok-sub', '{"type": "start_alert", "target_id": "not-a-uuid"}');
select tests.authenticate_as_service_role();
select lives_ok('select public.community_claim_push_batch(10, 60)', 'a malformed start alert does not break the claim');
reset role;
select is((select last_error from public.community_notification_outbox), 'suppressed', 'the malformed row is given up');

-- Pruning ----------------------------------------------------------------------------------------

update public.community_notification_outbox set created_at = now() - interval '8 days';
insert into public.community_notification_outbox (recipient_id, token, payload, created_at)
  values (tests.get_user_id('sub'), 'tok-sub', '{"type": "other"}', now() - interval '8 days');
select tests.authenticate_as_service_role();
select is(public.community_prune_push_outbox(7 * 86400), 1, 'pruning deletes settled rows older than the window');
reset role;
select is((select count(*)::int from public.community_notification_outbox), 1, 'a pending row is kept however old');

select * from finish();
rollback;

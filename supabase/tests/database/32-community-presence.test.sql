-- Presence: the heartbeat transition row by row, and staleness.
begin;
select plan(13);

select tests.create_user('pia');
select tests.authenticate_as('pia');

select is(public.community_heartbeat('studying', 's1', 'Maths', 't1', 'Algebra', '2026-01-01 10:00+00') ->> 'status',
  'studying', 'the first heartbeat creates the row with the given state');
reset role;
select is((select row(status, subject_id, subject_name, task_id, task_title, session_started_at)::text
  from public.user_presence where user_id = tests.get_user_id('pia')),
  row('studying', 's1', 'Maths', 't1', 'Algebra', '2026-01-01 10:00+00'::timestamptz)::text,
  'it stores state, subject, task and session start');
select is((select last_seen = now() and updated_at = now() from public.user_presence
  where user_id = tests.get_user_id('pia')), true, 'last_seen and updated_at are now');

-- Age the row, then heartbeat again with another session start: the existing one is kept.
update public.user_presence set last_seen = now() - interval '1 hour', updated_at = now() - interval '1 hour';
select tests.authenticate_as('pia');
select public.community_heartbeat('break', 's2', 'Physics', null, null, '2026-01-01 11:00+00');
reset role;
select is((select row(status, subject_id, task_id, session_started_at)::text from public.user_presence
  where user_id = tests.get_user_id('pia')),
  row('break', 's2', null::text, '2026-01-01 10:00+00'::timestamptz)::text,
  'a later heartbeat sets state and fields but keeps the existing session start');
select is((select last_seen = now() and updated_at = now() from public.user_presence
  where user_id = tests.get_user_id('pia')), true, 'and refreshes last_seen and updated_at');
update public.user_presence set session_started_at = null;
select tests.authenticate_as('pia');
select public.community_heartbeat('idle', null, null, null, null, '2026-01-01 12:00+00');
reset role;
select is((select session_started_at from public.user_presence where user_id = tests.get_user_id('pia')),
  '2026-01-01 12:00+00'::timestamptz, 'an empty session start takes the supplied value');
select is((select count(*)::int from public.user_presence), 1, 'heartbeats upsert one row per user');
select tests.authenticate_as('pia');
select throws_ok($$select public.community_heartbeat('napping')$$, 'P0030', 'invalid_state',
  'an unknown state is refused');

-- Staleness: a row 3 minutes old reads offline before and after expiry.
reset role;
update public.user_presence set status = 'studying', last_seen = now() - interval '3 minutes';
select is((select private.effective_presence_status(status, last_seen) from public.user_presence),
  'offline', 'a stale row reads offline before expire_stale_presence()');
select is(public.expire_stale_presence(), 1, 'expire_stale_presence() marks it and counts it');
select is((select status from public.user_presence), 'offline', 'after expiry the row is offline');
select is(public.expire_stale_presence(), 0, 'a second run finds nothing stale');
select tests.authenticate_as('pia');
select throws_ok('select public.expire_stale_presence()', '42501', null,
  'users cannot call expire_stale_presence()');

select * from finish();
rollback;

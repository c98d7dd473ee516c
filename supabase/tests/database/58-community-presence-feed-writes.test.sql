-- The presence feed, write side: nobody writes it directly (not even about herself); the triggers
-- write a row only when what it shows changes, so an unchanged heartbeat sends no realtime event;
-- the expiry sweep and a change of switches reach it; its helpers are no RPC; and it is published
-- for realtime.
begin;
select plan(21);

select tests.create_user('ada');
select tests.create_user('bo');
select tests.authenticate_as('ada');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Study Hall', 'private', 'invite', tests.get_user_id('ada'));
reset role;
insert into public.group_members (group_id, user_id, role)
  values ((select id from public.groups where name = 'Study Hall'), tests.get_user_id('bo'), 'member');

select tests.authenticate_as('ada');
select public.community_heartbeat('studying', 's1', 'Anatomy', 't1', 'Optics', now() - interval '5 minutes');

-- Direct writes are refused ---------------------------------------------------------------------
select throws_ok(format($$insert into public.presence_feed (user_id, state) values (%L, 'studying')$$,
  tests.get_user_id('ada')), '42501', null, 'a student cannot insert her own feed row');
select throws_ok($$update public.presence_feed set state = 'offline'$$, '42501', null,
  'nor update it');
select throws_ok($$delete from public.presence_feed$$, '42501', null, 'nor delete it');
select tests.authenticate_as('bo');
select throws_ok(format($$insert into public.presence_feed (user_id, state) values (%L, 'studying')$$,
  tests.get_user_id('bo')), '42501', null, 'nor can a fellow member insert one');
select throws_ok(format($$update public.presence_feed set state = 'studying', subject = 'forged' where user_id = %L$$,
  tests.get_user_id('ada')), '42501', null, 'nor change hers');
select tests.clear_authentication();
select throws_ok($$insert into public.presence_feed (user_id, state) values (gen_random_uuid(), 'idle')$$,
  '42501', null, 'nor a signed-out caller');
select tests.authenticate_as('ada');
select throws_ok(format('select private.sync_presence_feed(%L)', tests.get_user_id('ada')), '42501', null,
  'the sync function is no API role''s to call');
select is((select count(*)::int from public.presence_feed), 1, 'after all that her one row is still there');
select is((select state from public.presence_feed), 'studying', 'as the heartbeat wrote it');
reset role;

-- Rows change only when what they show changes ---------------------------------------------------
create temp table seen as select xmin::text as version, id from public.presence_feed where user_id = tests.get_user_id('ada');
select tests.authenticate_as('ada');
select public.community_heartbeat('studying', 's1', 'Anatomy', 't1', 'Optics', now() - interval '5 minutes');
reset role;
select is((select xmin::text from public.presence_feed where user_id = tests.get_user_id('ada')), (select version from seen),
  'the 30-second heartbeat of an unchanged session does not rewrite the row (no realtime event)');
select tests.authenticate_as('ada');
select public.community_heartbeat('studying', 's1', 'Anatomy', 't2', 'Acoustics', now() - interval '5 minutes');
reset role;
select is((select xmin::text from public.presence_feed where user_id = tests.get_user_id('ada')), (select version from seen),
  'nor does a change of task she does not share');
select tests.authenticate_as('ada');
select public.community_heartbeat('break', 's1', 'Anatomy', 't2', 'Acoustics', now() - interval '5 minutes');
reset role;
select is((select state from public.presence_feed where user_id = tests.get_user_id('ada')), 'break',
  'a pause is written at once');
select is((select id from public.presence_feed where user_id = tests.get_user_id('ada')), (select id from seen),
  'into the same row (an UPDATE event, which RLS filters per subscriber)');

select tests.authenticate_as('ada');
update public.community_enrollments set privacy = privacy || '{"shareTasks": true}'
  where user_id = tests.get_user_id('ada');
reset role;
select is((select task from public.presence_feed where user_id = tests.get_user_id('ada')), 'Acoustics',
  'sharing tasks shows the current task at once');
select tests.authenticate_as('ada');
update public.community_enrollments set privacy = privacy || '{"shareExactTime": false}'
  where user_id = tests.get_user_id('ada');
reset role;
select is((select since from public.presence_feed where user_id = tests.get_user_id('ada')), null,
  'withholding exact time clears the session start');

-- The sweep ------------------------------------------------------------------------------------
update public.user_presence set last_seen = now() - interval '3 minutes' where user_id = tests.get_user_id('ada');
select is((select state from public.presence_feed where user_id = tests.get_user_id('ada')), 'offline',
  'a heartbeat older than two minutes reads offline in the feed as on the board');
select public.expire_stale_presence();
select is((select row(state, subject, task, since)::text from public.presence_feed where user_id = tests.get_user_id('ada')),
  row('offline', null::text, null::text, null::timestamptz)::text, 'and after the sweep the row shows nothing else');

-- Deleting presence deletes the row; stealth rows get a new key ---------------------------------
delete from public.user_presence where user_id = tests.get_user_id('ada');
select is((select count(*)::int from public.presence_feed where user_id = tests.get_user_id('ada')), 0,
  'no presence, no row');

-- Shape ------------------------------------------------------------------------------------------
select policies_are('public', 'presence_feed', array['followers read presence'],
  'the feed has one policy: a read policy');
select ok(exists (select 1 from pg_publication_tables
  where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'presence_feed'),
  'the feed is published for realtime');
select is((select data_type from information_schema.columns
  where table_schema = 'public' and table_name = 'presence_feed' and column_name = 'id'), 'uuid',
  'its primary key is a uuid of its own, so a DELETE event names nobody');

select * from finish();
rollback;

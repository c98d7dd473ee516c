-- The timer relay of a district: only the service role calls the gateway_relay_* functions and no
-- API role reads their tables; a code reaches its page's channel and a wrong one is counted per
-- address and for all addresses; snapshots are stamped by the database, each later than the last;
-- actions count the streams servers report; an idle pairing is forgotten (and gives way to a new
-- one of its address) unless a stream holds it; bad input is refused with the registered code.
begin;
select plan(37);

create temp table keys (name text primary key, value text);
insert into keys values
  ('token', repeat('1', 64)), ('code', repeat('2', 64)), ('owner', repeat('3', 64)),
  ('token2', repeat('4', 64)), ('code2', repeat('5', 64)),
  ('token3', repeat('6', 64)), ('code3', repeat('7', 64)),
  ('phone', repeat('a', 64)), ('guesser', repeat('b', 64)), ('stranger', repeat('c', 64)), ('wrong', repeat('d', 64));
grant select on keys to public;
create function pg_temp.k(p_name text) returns text language sql as $$ select value from keys where name = p_name $$;
create temp table ids (name text primary key, value bigint);
grant select, insert on ids to public;

-- Denials: students and visitors neither call the functions nor read the tables.
select tests.create_user('ann');
select tests.authenticate_as('ann');
select throws_ok(format($$select public.gateway_relay_pair(%L, %L, %L, 600000, 1000, 16)$$,
  pg_temp.k('token'), pg_temp.k('code'), pg_temp.k('owner')), '42501', null, 'a signed-in student cannot pair a page');
select throws_ok(format($$select public.gateway_relay_page(%L)$$, pg_temp.k('token')), '42501', null,
  'nor look up a channel token');
select throws_ok(format($$select public.gateway_relay_phone(%L, %L, 20, 100, 600000)$$, pg_temp.k('code'), pg_temp.k('phone')),
  '42501', null, 'nor try a code');
select throws_ok($$select public.gateway_relay_store_snapshot(1, '{"phase": "idle"}')$$, '42501', null,
  'nor post a snapshot');
select throws_ok('select public.gateway_relay_read_snapshot(1)', '42501', null, 'nor read one');
select throws_ok($$select public.gateway_relay_send_action(1, '{"action": "start"}')$$, '42501', null, 'nor send an action');
select throws_ok('select public.gateway_relay_read_actions(1, 0)', '42501', null, 'nor read actions');
select throws_ok($$select public.gateway_relay_report_streams(gen_random_uuid(), '{1}', '{1}', 60000)$$, '42501', null,
  'nor report streams');
select throws_ok('select * from private.gateway_relay_channels', '42501', null, 'nor read the pairings');
select tests.clear_authentication();
set local role anon;
select throws_ok(format($$select public.gateway_relay_phone(%L, %L, 20, 100, 600000)$$, pg_temp.k('code'), pg_temp.k('phone')),
  '42501', null, 'a visitor with the anon key cannot try a code either');
reset role;

select tests.authenticate_as_service_role();
-- Pairing, and a phone with the code.
insert into ids select 'page', (public.gateway_relay_pair(pg_temp.k('token'), pg_temp.k('code'), pg_temp.k('owner'),
  600000, 1000, 2) ->> 'channel')::bigint;
select ok((select value from ids where name = 'page') > 0, 'the service role pairs a page');
select is(public.gateway_relay_page(pg_temp.k('token')), (select value from ids where name = 'page'),
  'its token names its channel');
select is(public.gateway_relay_pair(pg_temp.k('token2'), pg_temp.k('code'), pg_temp.k('owner'), 600000, 1000, 2),
  '{"refused": "code_taken"}'::jsonb, 'a live code is not handed out twice');
select is(public.gateway_relay_phone(pg_temp.k('code'), pg_temp.k('phone'), 2, 4, 600000),
  jsonb_build_object('channel', (select value from ids where name = 'page'), 'snapshot', null),
  'a phone with the code gets the channel, and no snapshot before the first post');
select throws_ok('select * from private.gateway_relay_channels', '42501', null,
  'the service role itself reads no table: only the functions do');

-- Snapshots: the database stamps them, each later than the last.
insert into ids select 'first post', public.gateway_relay_store_snapshot((select value from ids where name = 'page'),
  '{"phase": "focus", "running": true}');
select ok((select value from ids where name = 'first post') > 0, 'a post is stored and stamped');
select ok(public.gateway_relay_store_snapshot((select value from ids where name = 'page'), '{"phase": "break", "running": true}')
  > (select value from ids where name = 'first post'), 'a second post right after is stamped later');
select is(public.gateway_relay_read_snapshot((select value from ids where name = 'page')) - 'updatedAt',
  '{"phase": "break", "running": true}'::jsonb, 'and is the one read back');
select throws_ok(format($$select public.gateway_relay_store_snapshot(%s, '{"phase": "idle", "updatedAt": 1}')$$,
  (select value from ids where name = 'page')), 'P0114', 'invalid_relay_call', 'a snapshot with its own updatedAt is refused');
select throws_ok(format($$select public.gateway_relay_store_snapshot(%s, '[1]')$$, (select value from ids where name = 'page')),
  'P0114', 'invalid_relay_call', 'as is one that is not an object');

-- Actions count the streams the servers report.
select is((public.gateway_relay_send_action((select value from ids where name = 'page'), '{"action": "start"}') ->> 'delivered')::int,
  0, 'an action with no stream open anywhere reaches no page');
select lives_ok(format($$select public.gateway_relay_report_streams('00000000-0000-4000-8000-000000000001', '{%s}', '{2}', 60000)$$,
  (select value from ids where name = 'page')), 'a server reports two streams of the channel');
select is((public.gateway_relay_send_action((select value from ids where name = 'page'), '{"action": "target", "target": 5}') ->> 'delivered')::int,
  2, 'the next action counts them');
select is((select jsonb_agg(item - 'id' - 'at') from jsonb_array_elements(
  public.gateway_relay_read_actions((select value from ids where name = 'page'), 0)) item),
  '[{"action": "start"}, {"action": "target", "target": 5}]'::jsonb, 'the channel''s actions read back in order');

-- Wrong codes: 2 per address and 4 in all here.
select is(public.gateway_relay_phone(pg_temp.k('wrong'), pg_temp.k('guesser'), 2, 4, 600000) ->> 'refused', 'unknown',
  'a wrong code names no channel');
select 1 from public.gateway_relay_phone(null, pg_temp.k('guesser'), 2, 4, 600000);
select is(public.gateway_relay_phone(pg_temp.k('code'), pg_temp.k('guesser'), 2, 4, 600000) ->> 'refused', 'address_locked',
  'past its wrong codes an address is refused, the right code too');
select 1 from public.gateway_relay_phone(pg_temp.k('wrong'), pg_temp.k('stranger'), 2, 4, 600000);
select 1 from public.gateway_relay_phone(pg_temp.k('wrong'), pg_temp.k('stranger'), 2, 4, 600000);
select is(public.gateway_relay_phone(pg_temp.k('code'), repeat('e', 64), 2, 4, 600000) ->> 'refused', 'server_paused',
  'past the wrong codes of all addresses a new phone waits');
select is(public.gateway_relay_phone(pg_temp.k('code'), pg_temp.k('phone'), 2, 4, 600000) ->> 'channel',
  (select value::text from ids where name = 'page'), 'while a phone that used the code before gets in');
select throws_ok(format($$select public.gateway_relay_phone(%L, '10.0.0.1', 2, 4, 600000)$$, pg_temp.k('code')),
  'P0114', 'invalid_relay_call', 'an address that is not a digest is refused');

-- Slots: 2 per owner here. The second pairing fits; for a third the longest-idle one without a stream gives way.
insert into ids select 'second', (public.gateway_relay_pair(pg_temp.k('token2'), pg_temp.k('code2'), pg_temp.k('owner'),
  600000, 1000, 2) ->> 'channel')::bigint;
select ok((public.gateway_relay_pair(pg_temp.k('token3'), pg_temp.k('code3'), pg_temp.k('owner'), 600000, 1000, 2)
  ? 'channel'), 'a third pairing of the owner makes room');
select is(public.gateway_relay_page(pg_temp.k('token2')), null::bigint,
  'by forgetting the one without a stream, though the one with a stream is older');
select is(public.gateway_relay_page(pg_temp.k('token')), (select value from ids where name = 'page'),
  'the page with an open stream keeps its pairing');

-- Expiry: a pairing idle past its time is gone for the page and for the phone.
reset role;
update private.gateway_relay_channels set expires_at = clock_timestamp() - interval '1 second'
  where token_key = pg_temp.k('token');
select tests.authenticate_as_service_role();
select is(public.gateway_relay_page(pg_temp.k('token')), null::bigint, 'an idle pairing''s token names nothing');
select is(public.gateway_relay_phone(pg_temp.k('code'), pg_temp.k('phone'), 1000, 1000, 600000) ->> 'refused', 'unknown',
  'nor does its code');
select is(public.gateway_relay_store_snapshot((select value from ids where name = 'page'), '{"phase": "idle"}'), null::bigint,
  'and a post to it is not stored');
select ok(public.gateway_relay_pair(pg_temp.k('token2'), pg_temp.k('code'), repeat('f', 64), 600000, 1000, 2) ? 'channel',
  'its code is free for the next pairing');
reset role;
select is((select count(*)::int from private.gateway_relay_actions where channel_id = (select value from ids where name = 'page')),
  0, 'which deleted the idle pairing and its actions');

select * from finish();
rollback;

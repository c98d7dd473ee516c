-- The gateways' shared state (a district): only the service role calls the gateway_* functions and
-- no API role reads their tables; a rate-limit window counts every hit once and starts afresh when
-- it ends; the password budget counts failures and attempts in flight and locks past its maximum;
-- an ended admin session or account is refused; the first push identity offered is kept; bad input
-- is refused with the registered codes.
begin;
select plan(30);

create temp table keys (name text primary key, value text);
insert into keys values ('a', repeat('a', 64)), ('b', repeat('b', 64)), ('c', repeat('c', 64)),
  ('pub', 'B' || repeat('x', 86)), ('priv', repeat('y', 43)), ('pub2', 'B' || repeat('z', 86));
grant select on keys to public;
create function pg_temp.k(p_name text) returns text language sql as $$ select value from keys where name = p_name $$;

-- Denials: students and visitors neither call the functions nor read the tables.
select tests.create_user('ann');
select tests.authenticate_as('ann');
select throws_ok(format($$select public.gateway_hit_rate_window(%L, 60000)$$, pg_temp.k('a')), '42501', null,
  'a signed-in student cannot count a rate-limit hit');
select throws_ok(format($$select public.gateway_begin_password_attempt(%L, 10, 900000, 60000)$$, pg_temp.k('a')),
  '42501', null, 'nor start a password attempt');
select throws_ok(format($$select public.gateway_end_admin_session(%L, 2000000000)$$, pg_temp.k('a')), '42501', null,
  'nor end an admin session');
select throws_ok(format($$select public.gateway_admin_session_ended(%L, null, 1, 2)$$, pg_temp.k('a')), '42501', null,
  'nor ask whether one ended');
select throws_ok(format($$select public.gateway_push_identity(%L, %L, 'mailto:x@example.com')$$,
  pg_temp.k('pub'), pg_temp.k('priv')), '42501', null, 'nor read the push identity');
select throws_ok('select public.gateway_prune_shared_state()', '42501', null, 'nor prune');
select throws_ok('select * from private.gateway_push_identity', '42501', null, 'nor read a table');
select tests.clear_authentication();
set local role anon;
select throws_ok(format($$select public.gateway_hit_rate_window(%L, 60000)$$, pg_temp.k('a')), '42501', null,
  'a visitor with the anon key cannot either');
reset role;

select tests.authenticate_as_service_role();
-- Rate-limit windows.
select is((select public.gateway_hit_rate_window(pg_temp.k('a'), 60000) ->> 'hits'), '1', 'the first hit opens a window');
select is((select public.gateway_hit_rate_window(pg_temp.k('a'), 60000) ->> 'hits'), '2', 'the second counts in it');
select ok((select (public.gateway_hit_rate_window(pg_temp.k('a'), 60000) ->> 'ttl_ms')::int between 1 and 60000),
  'and answers the time left in the window');
select is((select public.gateway_hit_rate_window(pg_temp.k('b'), 60000) ->> 'hits'), '1', 'another key counts alone');
reset role;
update private.gateway_rate_windows set window_ends_at = clock_timestamp() - interval '1 second' where key = pg_temp.k('a');
select tests.authenticate_as_service_role();
select is((select public.gateway_hit_rate_window(pg_temp.k('a'), 60000) ->> 'hits'), '1', 'an ended window starts afresh');
select throws_ok($$select public.gateway_hit_rate_window('10.0.0.1', 60000)$$, 'P0110', 'invalid_rate_window',
  'a key that is not a digest is refused');

-- The password budget: 3 per window here.
select is((select public.gateway_begin_password_attempt(pg_temp.k('c'), 3, 900000, 60000) ->> 'generation'), '1',
  'an attempt begins in the first window');
select lives_ok(format($$select public.gateway_settle_password_attempt(%L, 1, true, 900000)$$, pg_temp.k('c')),
  'a wrong password is settled');
select 1 from public.gateway_begin_password_attempt(pg_temp.k('c'), 3, 900000, 60000);
select 1 from public.gateway_begin_password_attempt(pg_temp.k('c'), 3, 900000, 60000);
select is((select public.gateway_begin_password_attempt(pg_temp.k('c'), 3, 900000, 60000) ->> 'locked'), 'true',
  'one failure and two attempts in flight spend a budget of three');
select 1 from public.gateway_settle_password_attempt(pg_temp.k('c'), 1, false, 900000);
select is((select public.gateway_begin_password_attempt(pg_temp.k('c'), 3, 900000, 60000) ->> 'locked'), 'false',
  'a right password frees its place');
select throws_ok('select * from private.gateway_login_budgets', '42501', null,
  'the service role itself reads no table: only the functions do');
reset role;
select is((select failures from private.gateway_login_budgets where account = pg_temp.k('c')), 1,
  'and counts no failure');
select tests.authenticate_as_service_role();
select throws_ok(format($$select public.gateway_begin_password_attempt(%L, 0, 900000, 60000)$$, pg_temp.k('c')),
  'P0111', 'invalid_login_attempt', 'a budget of nothing is refused');

-- A server killed during an attempt: its attempt stops counting once it lapses.
select 1 from public.gateway_begin_password_attempt(pg_temp.k('b'), 1, 900000, 60000);
select is((select public.gateway_begin_password_attempt(pg_temp.k('b'), 1, 900000, 60000) ->> 'locked'), 'true',
  'an attempt in flight holds a budget of one');
reset role;
update private.gateway_login_budgets set in_flight_until = clock_timestamp() - interval '1 second'
  where account = pg_temp.k('b');
select tests.authenticate_as_service_role();
select is((select public.gateway_begin_password_attempt(pg_temp.k('b'), 1, 900000, 60000) ->> 'locked'), 'false',
  'and frees it once it lapses unsettled');

-- Ended admin sessions.
select 1 from public.gateway_end_admin_session(pg_temp.k('a'), extract(epoch from now())::bigint + 3600);
select is(public.gateway_admin_session_ended(pg_temp.k('a'), null, 1, extract(epoch from now())::bigint), true,
  'a logged-out session is refused');
select is(public.gateway_admin_session_ended(pg_temp.k('b'), null, 1, extract(epoch from now())::bigint), false,
  'another session is not');
select 1 from public.gateway_end_admin_account('user-1', 1000);
select is(public.gateway_admin_session_ended(pg_temp.k('b'), 'user-1', 1000, 1500), true,
  'an ended account refuses its sessions issued up to its end');
select is(public.gateway_admin_session_ended(pg_temp.k('b'), 'user-1', 1001, 1500), false,
  'and keeps a later login');
select throws_ok($$select public.gateway_end_admin_session('value-of-the-cookie', 1)$$, 'P0112', 'invalid_admin_session',
  'a cookie value instead of its digest is refused');

-- The push identity: the first offer is kept.
select is((select public.gateway_push_identity(pg_temp.k('pub'), pg_temp.k('priv'), 'mailto:a@example.com') ->> 'public_key'),
  pg_temp.k('pub'), 'the first offer is stored');
select is((select public.gateway_push_identity(pg_temp.k('pub2'), pg_temp.k('priv'), 'mailto:b@example.com') ->> 'public_key'),
  pg_temp.k('pub'), 'a later offer gets the stored identity back');

select * from finish();
rollback;

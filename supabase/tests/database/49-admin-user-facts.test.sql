-- The users page's facts: only the service role reads them, and each account's handle, last seen,
-- sessions, minutes and storage are its own.
begin;
select plan(10);

select tests.create_user('una');
select tests.create_user('ike');

select tests.authenticate_as('una');
select public.record_study_session(now() - interval '3 hours', 30);
select public.record_study_session(now() - interval '2 hours', 20);
update public.user_profiles set handle = 'una_h' where user_id = auth.uid();
insert into storage.objects (bucket_id, name, owner, metadata)
  values ('avatars', tests.get_user_id('una')::text || '/a.png', auth.uid(), '{"size": 1500}'),
         ('avatars', tests.get_user_id('una')::text || '/b.png', auth.uid(), '{"size": 500}');

-- Nobody but the service role -------------------------------------------------------------------
select throws_ok('select public.admin_user_facts()', '42501', null, 'a student cannot read every account''s facts');
select tests.clear_authentication();
set local role anon;
select throws_ok('select public.admin_user_facts()', '42501', null, 'nor can an anonymous caller');
reset role;

-- What the service role reads --------------------------------------------------------------------
select tests.authenticate_as_service_role();
create temporary table facts on commit drop as
  select value from jsonb_array_elements(public.admin_user_facts());
grant select on facts to service_role;
select is((select value ->> 'handle' from facts where value ->> 'user_id' = tests.get_user_id('una')::text), 'una_h',
  'her handle');
select is((select (value ->> 'sessions')::int from facts where value ->> 'user_id' = tests.get_user_id('una')::text), 2,
  'her two sessions');
select is((select (value ->> 'minutes')::int from facts where value ->> 'user_id' = tests.get_user_id('una')::text), 50,
  'her 50 minutes');
select is((select (value ->> 'storage_bytes')::bigint from facts where value ->> 'user_id' = tests.get_user_id('una')::text),
  2000::bigint, 'the bytes of the two objects she owns');
select is((select (value ->> 'storage_objects')::int from facts where value ->> 'user_id' = tests.get_user_id('una')::text), 2,
  'and their count');
select is((select (value ->> 'sessions')::int from facts where value ->> 'user_id' = tests.get_user_id('ike')::text), 0,
  'an account that never studied has no sessions');
select is((select (value ->> 'storage_bytes')::bigint from facts where value ->> 'user_id' = tests.get_user_id('ike')::text),
  0::bigint, 'and no storage');
select ok((select count(*) from facts where value ->> 'user_id' in (tests.get_user_id('una')::text, tests.get_user_id('ike')::text)) = 2,
  'both accounts are listed');

select * from finish();
rollback;

-- The buddy feed: a student's row is touched when what she may read of her connections changes,
-- on both sides of a request, an acceptance, a decline, a cancellation and a removal; a block of a
-- buddy reaches the blocked side exactly as a removal does, a block of a stranger reaches nobody but
-- the blocker; a write that changes nothing either side reads touches nobody; each student reads
-- her own row only, anon none, and nobody writes it; the table is in the realtime publication.
begin;
select plan(24);

select tests.create_user('ada');
select tests.create_user('bo');
select tests.create_user('cy');
select tests.create_user('dee');
select tests.authenticate_as('ada');
select public.community_bootstrap_profile('ada_h');
select tests.authenticate_as('bo');
select public.community_bootstrap_profile('bo_h');
select tests.authenticate_as('cy');
select public.community_bootstrap_profile('cy_h');
select tests.authenticate_as('dee');
select public.community_bootstrap_profile('dee_h');
reset role;

-- How often each student's row was touched: the trigger's clock_timestamp() moves on every touch.
create temp table touches (name text primary key, id uuid, seen timestamptz);
insert into touches select n, tests.get_user_id(n), null from unnest(array['ada', 'bo', 'cy', 'dee']) n;
create or replace function pg_temp.touched() returns text[] language plpgsql as $$
declare
  v_names text[];
begin
  select coalesce(array_agg(t.name order by t.name), '{}') into v_names
  from touches t join public.buddy_feed f on f.user_id = t.id
  where f.changed_at is distinct from t.seen;
  update touches t set seen = f.changed_at from public.buddy_feed f where f.user_id = t.id;
  return v_names;
end
$$;

-- Both sides, each step ------------------------------------------------------------------------------
select tests.authenticate_as('ada');
select public.community_request_buddy('bo_h');
reset role;
select is(pg_temp.touched(), '{ada,bo}', 'a request touches the sender and the one it reaches');

select tests.authenticate_as('bo');
select public.community_respond_buddy((select id from public.community_friends where friend_id = auth.uid()), true);
reset role;
select is(pg_temp.touched(), '{ada,bo}', 'an acceptance touches both: the sender learns at once');

update public.community_friends set updated_at = now() - interval '1 day';
select is(pg_temp.touched(), '{}', 'a write that changes nothing either side reads touches nobody');

select tests.authenticate_as('bo');
select public.community_remove_buddy(tests.get_user_id('ada'), false);
reset role;
select is(pg_temp.touched(), '{ada,bo}', 'a removal touches both');

select tests.authenticate_as('cy');
select public.community_request_buddy('ada_h');
reset role;
select pg_temp.touched();
select tests.authenticate_as('ada');
select public.community_respond_buddy((select id from public.community_friends where user_id = tests.get_user_id('cy')), false);
reset role;
select is(pg_temp.touched(), '{ada,cy}', 'a decline touches both');

select tests.authenticate_as('cy');
select public.community_request_buddy('ada_h');
reset role;
select is(pg_temp.touched(), '{ada,cy}', 'asking again after a decline touches both');
select tests.authenticate_as('cy');
select public.community_remove_buddy(tests.get_user_id('ada'), false);
reset role;
select is(pg_temp.touched(), '{ada,cy}', 'cancelling a request touches both');

-- Blocks ---------------------------------------------------------------------------------------------
select tests.authenticate_as('ada');
select public.community_request_buddy('bo_h');
select tests.authenticate_as('bo');
select public.community_respond_buddy((select id from public.community_friends where friend_id = auth.uid()), true);
reset role;
select pg_temp.touched();
select tests.authenticate_as('bo');
select public.community_remove_buddy(tests.get_user_id('ada'), true);
reset role;
select is(pg_temp.touched(), '{ada,bo}',
  'blocking a buddy touches the blocked side as a removal does: the buddy is gone from her view');

select tests.authenticate_as('dee');
select public.community_remove_buddy(tests.get_user_id('cy'), true);
reset role;
select is(pg_temp.touched(), '{dee}', 'blocking a stranger touches the blocker only: the blocked one sees no change');

select tests.authenticate_as('cy');
select public.community_remove_buddy(tests.get_user_id('dee'), false);
reset role;
select is(pg_temp.touched(), '{}', 'the blocked one "removing" the block changes nothing and touches nobody');

select tests.authenticate_as('dee');
select public.community_remove_buddy(tests.get_user_id('cy'), false);
reset role;
select is(pg_temp.touched(), '{dee}', 'lifting a block on a stranger touches the blocker only');

-- Reads and writes -------------------------------------------------------------------------------------
select tests.authenticate_as('ada');
select is((select array_agg(user_id) from public.buddy_feed), array[tests.get_user_id('ada')],
  'a student reads her own row and no one else''s');
select is((select count(*)::int from public.buddy_feed where user_id = tests.get_user_id('bo')), 0,
  'not even a buddy''s row with its id');
select is(
  (select array_agg(column_name::text order by ordinal_position) from information_schema.columns
   where table_schema = 'public' and table_name = 'buddy_feed'),
  array['id', 'user_id', 'changed_at'],
  'a row holds her id and when her view changed, nothing about anyone else');
select throws_ok($$insert into public.buddy_feed (user_id) values (auth.uid())$$, '42501', null,
  'she cannot write her row');
select throws_ok($$update public.buddy_feed set changed_at = now()$$, '42501', null, 'nor touch it');
select throws_ok($$delete from public.buddy_feed$$, '42501', null, 'nor delete it');
select tests.clear_authentication();
select throws_ok($$select count(*) from public.buddy_feed$$, '42501', null, 'anon reads nothing');

select tests.authenticate_as('ada');
select throws_ok($$select private.touch_buddy_feed(auth.uid())$$, '42501', null,
  'the touch is no RPC: a student cannot make anyone''s page re-read');
reset role;

-- Realtime and account deletion --------------------------------------------------------------------------
select ok(exists (select 1 from pg_publication_tables
                  where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'buddy_feed'),
  'the table is in the realtime publication');
select ok(not exists (select 1 from pg_publication_tables
                      where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = 'community_friends'),
  'community_friends is not: its DELETEs would reach every subscriber');
select ok((select relrowsecurity from pg_class where oid = 'public.buddy_feed'::regclass), 'RLS is on');

select tests.authenticate_as('ada');
select public.community_request_buddy('dee_h');
reset role;
select pg_temp.touched();
delete from auth.users where id = tests.get_user_id('dee');
select is(pg_temp.touched(), '{ada}', 'a deleted account''s connections touch the other side as it goes');
select is((select count(*)::int from public.buddy_feed where user_id not in (select id from public.users)), 0,
  'and leave no row of the deleted account behind');

select * from finish();
rollback;

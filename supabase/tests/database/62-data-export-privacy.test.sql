-- export_my_data holds only what the caller may read elsewhere: it runs with her rights, so a
-- block placed on her, the chat of a group she was removed from and reports about her stay out of
-- her export, while everything her own reads return (her pending requests, her blocks, her groups,
-- messages and reports) stays in it, row for row what the Data API answers her.
begin;
select plan(14);

select tests.create_user('blocked');
select tests.create_user('blocker');
select tests.create_user('friend');
select tests.create_user('group_owner');

select tests.authenticate_as('blocked');
select public.community_bootstrap_profile('blocked_handle');
select tests.authenticate_as('blocker');
select public.community_bootstrap_profile('blocker_handle');
select tests.authenticate_as('friend');
select public.community_bootstrap_profile('friend_handle');
select tests.authenticate_as('group_owner');
select public.community_bootstrap_profile('owner_handle');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Left Group', 'private', 'open', tests.get_user_id('group_owner'));
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Kept Group', 'public', 'open', tests.get_user_id('group_owner'));
reset role;
create temp table g as select id, name from public.groups where name in ('Left Group', 'Kept Group');
grant select on g to public;

select tests.authenticate_as('blocked');
select public.community_request_buddy('blocker_handle');
select public.community_request_buddy('friend_handle');
select public.community_join_group((select id from g where name = 'Left Group'));
select public.community_join_group((select id from g where name = 'Kept Group'));
select public.community_send_group_message((select id from g where name = 'Left Group'), 'said before removal');
select public.community_send_group_message((select id from g where name = 'Kept Group'), 'said and kept');
select public.community_submit_report('group', (select id from g where name = 'Kept Group'), 'noise');
select tests.authenticate_as('blocker');
select public.community_remove_buddy(tests.get_user_id('blocked'), true);
select tests.authenticate_as('group_owner');
select public.community_submit_report('user', tests.get_user_id('blocked'), 'rude');
select public.community_remove_member((select id from g where name = 'Left Group'), tests.get_user_id('blocked'));

reset role;
select is((select p.prosecdef from pg_proc p where p.oid = 'public.export_my_data()'::regprocedure), false,
  'export_my_data runs with the caller''s rights, so her policies decide every section');

-- What stays out ---------------------------------------------------------------------------------
select tests.authenticate_as('blocked');
create temp table blocked_export as select public.export_my_data() as d;
select is((select position(tests.get_user_id('blocker')::text in d::text) from blocked_export), 0,
  'a blocked student''s export does not name the one who blocked her');
select is((select count(*)::int from blocked_export, jsonb_array_elements(d -> 'buddies') b where b ->> 'status' = 'blocked'), 0,
  'and holds no blocked connection');
select is((select position((select id::text from g where name = 'Left Group') in d::text) from blocked_export), 0,
  'nothing of a group she was removed from: neither the group nor her messages there');
select is((select count(*)::int from blocked_export, jsonb_array_elements(d -> 'messages') m where m ->> 'content' = 'said before removal'), 0,
  'her message in that group, whose chat she can no longer read, is not in it');
select is((select count(*)::int from blocked_export, jsonb_array_elements(d -> 'reports') r where r ->> 'target_id' = tests.get_user_id('blocked')::text), 0,
  'a report about her is not in it');

-- What stays in, row for row what her own reads return ----------------------------------------
select is((select array(select b ->> 'id' from blocked_export, jsonb_array_elements(d -> 'buddies') b order by 1)),
  array(select id::text from public.community_friends order by 1),
  'her connections are exactly those she reads');
select is((select array(select b ->> 'friend_id' from blocked_export, jsonb_array_elements(d -> 'buddies') b)),
  array[tests.get_user_id('friend')::text], 'her pending request to a friend is in it');
select is((select array(select m ->> 'id' from blocked_export, jsonb_array_elements(d -> 'messages') m order by 1)),
  array(select id::text from public.group_chat_messages where sender_id = auth.uid() order by 1),
  'her messages are exactly those she reads');
select is((select array(select m ->> 'content' from blocked_export, jsonb_array_elements(d -> 'messages') m)),
  array['said and kept'], 'her message in a group she is still in is in it');
select is((select array(select x ->> 'name' from blocked_export, jsonb_array_elements(d -> 'groups') x)),
  array['Kept Group'], 'her groups are those she is still a member of');
select is((select array(select r ->> 'id' from blocked_export, jsonb_array_elements(d -> 'reports') r order by 1)),
  array(select id::text from public.community_reports order by 1),
  'her reports are exactly those she reads: the one she made');

select tests.authenticate_as('blocker');
select is((select array(select b ->> 'status' from jsonb_array_elements(public.export_my_data() -> 'buddies') b)),
  array['blocked'], 'the blocker''s own export keeps the block she placed');

select tests.clear_authentication();
select throws_ok($$select public.export_my_data()$$, '42501', null, 'anon cannot export anything');

select * from finish();
rollback;

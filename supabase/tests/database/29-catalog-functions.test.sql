-- Catalog rules for every function and policy, present and future: each public function the API
-- roles can execute says why (rpc: or policy helper:), anon executes only the signed-out list,
-- no policy reads group_members directly (it would recurse through group_members' own policy),
-- and every function an API role can execute that takes an id is a reviewed decision: those that
-- take a user's id answer nothing about anyone but the caller.
begin;
select plan(23);

create temp table api_functions as
select p.oid, p.oid::regprocedure::text as signature,
       has_function_privilege('anon', p.oid, 'execute') as anon_executes,
       coalesce(obj_description(p.oid, 'pg_proc'), '') as comment
from pg_proc p
where p.pronamespace = 'public'::regnamespace
  -- functions an extension installed are the extension's business, not a migration's
  and not exists (select 1 from pg_depend d
                  where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  and (has_function_privilege('anon', p.oid, 'execute')
       or has_function_privilege('authenticated', p.oid, 'execute'));

select is(
  array(select signature from api_functions
        where comment not like 'rpc:%' and comment not like 'policy helper:%' order by 1),
  '{}'::text[],
  'every public function the API roles can execute has a comment starting rpc: or policy helper:');

-- Adding a function here is a decision a reviewer sees: it must make sense for a signed-out caller.
select is(
  array(select signature from api_functions where anon_executes order by 1),
  array[
    'backup_richness(jsonb)',          -- pure function of its argument (a generated column uses it)
    'community_preview_invite(text)',  -- the invite landing page, before sign-in
    'get_invite_details(text)'         -- the same, under its other name
  ],
  'anon executes only the functions meant for signed-out callers');

select is(
  array(select format('%s on %I.%I', policyname, schemaname, tablename)
        from pg_policies
        where schemaname in ('public', 'storage')
          and (coalesce(qual, '') ~ 'group_members' or coalesce(with_check, '') ~ 'group_members')
        order by 1),
  '{}'::text[],
  'no policy expression mentions group_members (membership goes through the definer helpers)');

select is(
  array(select p.oid::regprocedure::text
        from pg_proc p
        where p.proname in ('_is_group_member', '_has_group_role', 'my_group_ids', 'my_group_id_array', 'is_group_member', 'has_group_role')
          and (not p.prosecdef or p.provolatile <> 's'
               or not coalesce(p.proconfig, '{}') @> array['search_path=""'])
        order by 1),
  '{}'::text[],
  'the membership helpers are security definer, stable, with an empty search_path');

select is(
  array(select p.oid::regprocedure::text
        from pg_proc p
        where p.pronamespace = 'private'::regnamespace
          and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
        order by 1),
  array[
    'private.caller_is_app_admin()',                                     -- whether the caller is an admin, for the audit log read policy
    'private.effective_presence_status(text,timestamp with time zone)',  -- pure; the overview calls it as the caller
    'private.leaderboard_visible_ids()',                                 -- who chose to be on leaderboards, for the stats policies
    'private.may_hear_group_chat(text)',                                 -- whether a topic is the current chat topic of the caller's own groups
    'private.my_group_id_array()',                                       -- the caller's own groups as an array, for the chat read policy
    'private.my_group_ids()',                                            -- the caller's own groups, for policies
    'private.presence_visible_to_caller(uuid)',                          -- whether a student shares a group or an accepted buddy with the caller, which her own group and buddy lists show; the presence feed's read policy
    'private.slugify(text)'                                              -- pure; the slug trigger runs as the caller
  ],
  'the API roles execute only these private functions, none of which answers about another user beyond what they share');

-- Every function the API roles can execute that takes an id. A user's id (uid, p_user_id,
-- p_other_user, p_new_owner, and p_target_id for buddy and user targets) must never buy an answer
-- about that user: the helpers answer only about the caller, the owner actions need the caller to
-- own the group, and the rest act on the caller's own rows. Each is proven below.
select is(
  array(select distinct p.oid::regprocedure::text
        from pg_proc p
        join information_schema.parameters a
          on a.specific_schema = 'public' and a.specific_name = p.proname || '_' || p.oid
        where p.pronamespace = 'public'::regnamespace and a.parameter_mode = 'IN' and a.data_type = 'uuid'
          and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
        order by 1),
  array[
    '_has_group_role(uuid,uuid,text[])',                     -- user id: answers only about the caller
    '_is_group_member(uuid,uuid)',                           -- user id: answers only about the caller
    'community_cancel_join_request(uuid)',                   -- group id: the caller's own request only
    'community_create_invite(text,uuid,integer,integer)',    -- target: a group the caller owns, or the caller
    'community_delete_group(uuid)',                          -- group id: owner only
    'community_get_chat_topic(uuid)',                        -- group id: members only
    'community_get_group_board(uuid)',                       -- group id: members only
    'community_get_group_messages(uuid,integer,timestamp with time zone)', -- group id: members only
    'community_get_join_requests(uuid)',                     -- group id: owner only
    'community_get_start_alert(text,uuid)',                  -- target: the caller's own alert only
    'community_join_group(uuid)',                            -- group id: a private group is reachable by its link
    'community_leave_group(uuid)',                           -- group id: the caller's membership
    'community_remove_buddy(uuid,boolean)',                  -- user id: the caller's own connection only
    'community_remove_member(uuid,uuid)',                    -- user id: owner only
    'community_respond_buddy(uuid,boolean)',                 -- connection id: its recipient only
    'community_respond_join_request(uuid,boolean)',          -- request id: the group's owner only
    'community_send_group_message(uuid,text)',               -- group id: members only
    'community_set_member_role(uuid,uuid,text)',             -- user id: owner only
    'community_set_start_alert(text,uuid,time without time zone,time without time zone,integer,boolean)', -- target: the caller's buddies and groups
    'community_submit_report(text,uuid,text)',               -- target: written, never read back
    'community_transfer_ownership(uuid,uuid)',               -- user id: owner only
    'delete_chat_message(uuid)',                             -- message id: message_not_found unless the caller reads its group
    'get_group_analytics_from_snapshots(uuid,integer)',      -- group id: members only
    'get_group_leaderboard(uuid,integer,integer)',           -- group id: members only
    'record_study_session(timestamp with time zone,integer,text,text,text,text,integer,integer,integer,uuid)', -- client id: looked up among the caller's own sessions only
    'resolve_report(uuid,text,text,uuid)',                   -- report id: admins only
    'void_study_session(uuid,text,text)'                     -- session id: admins and the service role only
  ],
  'every function the API roles execute that takes an id is on the reviewed list');

-- The proofs: an outsider (bob) asks about alice, the owner of a private group with carol as a
-- member and dave as a buddy, and gets what a made-up id would get.
select tests.create_user('alice');
select tests.create_user('bob');
select tests.create_user('carol');
select tests.create_user('dave');
select tests.authenticate_as('alice');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Quiet Room', 'private', 'invite', tests.get_user_id('alice'));
select public.community_bootstrap_profile('alice_h');
reset role;
create temp table room as select id, gen_random_uuid() as nobody, gen_random_uuid() as no_group
  from public.groups where name = 'Quiet Room';
grant select on room to public;
insert into public.group_members (group_id, user_id, role) values ((select id from room), tests.get_user_id('carol'), 'member');
select tests.authenticate_as('dave');
select public.community_request_buddy('alice_h');
select tests.authenticate_as('alice');
select public.community_respond_buddy(id, true) from public.community_friends where friend_id = auth.uid();
select public.community_set_start_alert('group', (select id from room));

select tests.authenticate_as('bob');
select is(array[public._is_group_member((select id from room), tests.get_user_id('alice')),
                public._is_group_member((select id from room), tests.get_user_id('carol'))],
  array[false, false], '_is_group_member tells an outsider nothing about the owner or a member of a private group');
select is(array[public._has_group_role((select id from room), tests.get_user_id('alice'), array['owner']),
                public._has_group_role((select id from room), tests.get_user_id('carol'), array['member'])],
  array[false, false], '_has_group_role tells an outsider nothing about the owner or a member of a private group');
select throws_ok(format('select public.community_create_invite(%L, %L)', 'group', (select id from room)),
  'P0003', 'not_group_owner', 'community_create_invite refuses a group the caller does not own ...');
select throws_ok(format('select public.community_create_invite(%L, %L)', 'group', (select no_group from room)),
  'P0003', 'not_group_owner', '... exactly as it refuses a made-up group');
select throws_ok(format('select public.community_create_invite(%L, %L)', 'buddy', tests.get_user_id('alice')),
  'P0004', 'invalid_target', 'community_create_invite makes buddy invites only for the caller');
select is(public.community_get_start_alert('group', (select id from room)), null,
  'community_get_start_alert shows an outsider nothing of the owner''s alert on her group');
select throws_ok(format('select public.community_remove_buddy(%L, false)', tests.get_user_id('alice')),
  'P0024', 'connection_not_found', 'community_remove_buddy answers "not connected" about a student with buddies ...');
select throws_ok(format('select public.community_remove_buddy(%L, false)', (select nobody from room)),
  'P0024', 'connection_not_found', '... exactly as about a made-up id');
select throws_ok(format('select public.community_remove_member(%L, %L)', (select id from room), tests.get_user_id('carol')),
  'P0003', 'not_group_owner', 'community_remove_member refuses an outsider, whether or not the id is a member');
select throws_ok(format('select public.community_set_member_role(%L, %L, %L)', (select id from room), tests.get_user_id('carol'), 'owner'),
  'P0003', 'not_group_owner', 'community_set_member_role refuses an outsider');
select throws_ok(format('select public.community_transfer_ownership(%L, %L)', (select id from room), tests.get_user_id('bob')),
  'P0003', 'not_group_owner', 'community_transfer_ownership refuses an outsider');
select throws_ok(format('select public.community_set_start_alert(%L, %L)', 'group', (select id from room)),
  'P0062', 'target_not_found', 'community_set_start_alert refuses a private group the caller is not in ...');
select throws_ok(format('select public.community_set_start_alert(%L, %L)', 'group', (select no_group from room)),
  'P0062', 'target_not_found', '... exactly as a made-up group');
select throws_ok(format('select public.community_set_start_alert(%L, %L)', 'buddy', tests.get_user_id('alice')),
  'P0062', 'target_not_found', 'community_set_start_alert refuses a student who is not the caller''s buddy');
select isnt(public.community_submit_report('user', tests.get_user_id('alice'), 'spam'), null,
  'community_submit_report files a report on a real student ...');
select isnt(public.community_submit_report('user', (select nobody from room), 'spam'), null,
  '... and on a made-up id alike, so it reveals nothing');
reset role;
select is((select count(*)::int from public.group_members where group_id = (select id from room)), 2,
  'after the outsider''s attempts the private group still has exactly its owner and its member');

select * from finish();
rollback;

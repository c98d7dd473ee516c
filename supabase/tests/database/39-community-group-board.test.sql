-- The group page's reads and the owner tools added for the app: the board (members, roles, live
-- presence filtered by each member's own switches), owners' join-request list, a requester
-- cancelling a pending request, and an owner revoking an invite. Outsiders are refused. Going
-- offline ends a presence session, so the next session's start is the one the board shows.
begin;
select plan(35);

select tests.create_user('alice');  -- owner of Board Room (private, invite) and Open Door (public, request)
select tests.create_user('carol');  -- member, studying, shares her subject but not her tasks
select tests.create_user('dave');   -- member in stealth mode, studying
select tests.create_user('eve');    -- member whose presence went stale; shares no exact time
select tests.create_user('bob');    -- outsider

select tests.authenticate_as('alice');
select public.community_bootstrap_profile('alice_h');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Board Room', 'private', 'invite', tests.get_user_id('alice'));
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Open Door', 'public', 'request', tests.get_user_id('alice'));
reset role;
create temp table g as
  select (select id from public.groups where name = 'Board Room') as room,
         (select id from public.groups where name = 'Open Door') as door;
grant select on g to public;
insert into public.group_members (group_id, user_id, role)
  select (select room from g), tests.get_user_id(name), 'member' from unnest(array['carol', 'dave', 'eve']) name;
update public.community_enrollments
  set privacy = privacy || '{"shareCurrentSubject": true, "shareTasks": false, "shareExactTime": true}'
  where user_id = tests.get_user_id('carol');
update public.community_enrollments
  set privacy = '{"stealthMode": true, "shareTasks": true, "shareSubjectBreakdown": true,
                  "shareQuestionCounts": true, "shareExactTime": true, "shareCurrentSubject": true}'
  where user_id = tests.get_user_id('dave');
update public.community_enrollments
  set privacy = privacy || '{"shareExactTime": false, "shareCurrentSubject": true}'
  where user_id = tests.get_user_id('eve');

-- Carol's local time is kept six hours from midnight, so her session 40 minutes ago falls on today.
insert into public.user_settings (user_id, timezone_offset_minutes)
  values (tests.get_user_id('carol'), case when extract(hour from now() at time zone 'UTC') < 12 then 360 else -360 end)
  on conflict (user_id) do update set timezone_offset_minutes = excluded.timezone_offset_minutes;

select tests.authenticate_as('carol');
select public.community_bootstrap_profile('carol_h');
select public.community_heartbeat('studying', 's1', 'Anatomy', 't1', 'Read chapter 4', now() - interval '25 minutes');
select public.record_study_session(now() - interval '40 minutes', 40, 's1', 'Anatomy');
select tests.authenticate_as('dave');
select public.community_heartbeat('studying', 's2', 'Physics', 't2', 'Optics', now() - interval '5 minutes');
select tests.authenticate_as('eve');
select public.community_heartbeat('studying', 's3', 'History', null, null, now() - interval '1 hour');
reset role;
update public.user_presence set last_seen = now() - interval '3 minutes' where user_id = tests.get_user_id('eve');

create temp table board as select null::jsonb as entries;
grant select, update on board to public;
create or replace function pg_temp.member(p_name text) returns jsonb language sql as $$
  select e from board, jsonb_array_elements(board.entries) e where e ->> 'userId' = tests.get_user_id(p_name)::text
$$;
select tests.authenticate_as('alice');
update board set entries = public.community_get_group_board((select room from g));

-- The board ------------------------------------------------------------------------------------
select is(jsonb_array_length((select entries from board)), 4, 'the board lists every member of the group');
select is(pg_temp.member('alice') ->> 'role', 'owner', 'it names the owner''s role');
select is(pg_temp.member('carol') ->> 'role', 'member', 'and a member''s role');
select is((pg_temp.member('alice') ->> 'you')::boolean, true, 'the caller''s own entry is marked');
select is(pg_temp.member('carol') ->> 'handle', 'carol_h', 'it carries a member''s handle, which a member cannot read directly');
select is(pg_temp.member('carol') #>> '{presence,state}', 'studying', 'a live member shows her state');
select is(pg_temp.member('carol') #>> '{presence,subject}', 'Anatomy', 'her subject, which she shares');
select is(pg_temp.member('carol') #>> '{presence,task}', null, 'but not her task, which she does not share');
select is((pg_temp.member('carol') #>> '{presence,since}')::timestamptz, now() - interval '25 minutes',
  'with exact time shared, when her session started');
select is((pg_temp.member('carol') ->> 'minutesToday')::int, 40, 'and her settled minutes today');
select is(pg_temp.member('dave') -> 'presence',
  '{"state": "offline", "subject": null, "task": null, "since": null}'::jsonb,
  'stealth mode shows a studying member as offline with nothing else, whatever his other switches say');
select is(pg_temp.member('eve') #>> '{presence,state}', 'offline', 'a heartbeat older than two minutes reads offline');
select is(pg_temp.member('eve') #>> '{presence,subject}', null, 'and a stale row shows no subject');
select is(pg_temp.member('eve') -> 'minutesToday', 'null'::jsonb, 'minutes today are withheld without shareExactTime');

select tests.authenticate_as('carol');
select is(jsonb_array_length(public.community_get_group_board((select room from g))), 4, 'any member reads the board');
select tests.authenticate_as('bob');
select throws_ok(format('select public.community_get_group_board(%L)', (select room from g)), 'P0001', 'not_group_member',
  'an outsider with the id of a private group is refused the board ...');
select throws_ok(format('select public.community_get_group_board(%L)', (select door from g)), 'P0001', 'not_group_member',
  '... and so is an outsider of a public group');
select throws_ok(format('select public.community_get_group_board(%L)', gen_random_uuid()), 'P0001', 'not_group_member',
  '... exactly as for a made-up id');
select tests.clear_authentication();
select throws_ok(format('select public.community_get_group_board(%L)', (select room from g)), '42501', null,
  'a signed-out caller cannot call the board at all');

-- A session ends when its student goes offline --------------------------------------------------
select tests.authenticate_as('carol');
select public.community_heartbeat('offline');
reset role;
select is((select session_started_at from public.user_presence where user_id = tests.get_user_id('carol')), null,
  'an offline heartbeat clears the session start');
select tests.authenticate_as('carol');
select public.community_heartbeat('studying', 's1', 'Anatomy', null, null, now() - interval '2 minutes');
reset role;
select is((select session_started_at from public.user_presence where user_id = tests.get_user_id('carol')),
  now() - interval '2 minutes', 'so the next session''s first heartbeat stores its own start, not the old one');
update public.user_presence set last_seen = now() - interval '3 minutes' where user_id = tests.get_user_id('carol');
select public.expire_stale_presence();
select is((select session_started_at from public.user_presence where user_id = tests.get_user_id('carol')), null,
  'the expiry sweep (a crashed browser) ends the session too');

-- Join requests: listed for owners, cancelled by their requester ---------------------------------
select tests.authenticate_as('bob');
select public.community_bootstrap_profile('bob_h');
select is(public.community_join_group((select door from g)), 'pending', 'bob asks to join the request-only group');
select tests.authenticate_as('alice');
select is((select jsonb_agg(r ->> 'handle') from jsonb_array_elements(public.community_get_join_requests((select door from g))) r),
  '["bob_h"]'::jsonb, 'the owner reads the pending request with the requester''s handle');
select tests.authenticate_as('carol');
select throws_ok(format('select public.community_get_join_requests(%L)', (select room from g)), 'P0003', 'not_group_owner',
  'a member who is not an owner cannot list join requests');
select tests.authenticate_as('carol');
select throws_ok(format('select public.community_cancel_join_request(%L)', (select door from g)), 'P0002', 'request_not_found',
  'someone else cannot cancel bob''s request (they have none of their own)');
select tests.authenticate_as('bob');
select lives_ok(format('select public.community_cancel_join_request(%L)', (select door from g)), 'bob cancels his pending request');
select throws_ok(format('select public.community_cancel_join_request(%L)', (select door from g)), 'P0002', 'request_not_found',
  'a second cancel finds nothing to cancel');
select tests.authenticate_as('alice');
select is(public.community_get_join_requests((select door from g)), '[]'::jsonb, 'the owner''s list is empty again');
reset role;
select is((select count(*)::int from public.community_join_requests), 0, 'the cancelled request is gone, not left pending');

-- Revoking invites -------------------------------------------------------------------------------
select tests.authenticate_as('alice');
create temp table invite as select public.community_create_invite('group', (select room from g)) as token;
grant select on invite to public;
select tests.authenticate_as('carol');
select throws_ok(format('select public.community_revoke_invite(%L)', (select token from invite)), 'P0002', 'invite_not_found',
  'a member who is not an owner cannot revoke the group''s invite');
select tests.authenticate_as('bob');
select throws_ok(format('select public.community_revoke_invite(%L)', (select token from invite)), 'P0002', 'invite_not_found',
  'nor can an outsider holding the token');
select is(public.community_preview_invite((select token from invite)) ->> 'valid', 'true', 'the invite still works after both attempts');
select tests.authenticate_as('alice');
select lives_ok(format('select public.community_revoke_invite(%L)', (select token from invite)), 'the owner revokes the invite');
select is(public.community_preview_invite((select token from invite)), '{"valid": false}'::jsonb,
  'a revoked invite previews as invalid');

select * from finish();
rollback;

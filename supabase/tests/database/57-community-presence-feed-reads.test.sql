-- The presence feed, read side: a fellow group member and an accepted buddy read a student's
-- row, holding only what the group board shows of her; a stranger, a member of another group, a
-- pending or declined request, a signed-out caller and anyone at all while she is in stealth mode
-- read nothing. Leaving the group ends what a member reads.
begin;
select plan(24);

select tests.create_user('ada');  -- studies; in Study Hall with bo; buddy of fay
select tests.create_user('bo');   -- fellow member of Study Hall; also in Other Room with cy
select tests.create_user('cy');   -- member of Other Room only: shares a group with bo, not with ada
select tests.create_user('dee');  -- asked ada to be buddies, still pending
select tests.create_user('eli');  -- asked ada to be buddies, declined
select tests.create_user('fay');  -- ada's accepted buddy, in no group of hers
select tests.create_user('gus');  -- a stranger

select tests.authenticate_as('ada');
select public.community_bootstrap_profile('ada_h');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Study Hall', 'private', 'invite', tests.get_user_id('ada'));
select tests.authenticate_as('bo');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Other Room', 'private', 'invite', tests.get_user_id('bo'));
reset role;
create temp table g as
  select (select id from public.groups where name = 'Study Hall') as hall,
         (select id from public.groups where name = 'Other Room') as other;
grant select on g to public;
insert into public.group_members (group_id, user_id, role) values
  ((select hall from g), tests.get_user_id('bo'), 'member'),
  ((select other from g), tests.get_user_id('cy'), 'member');

select tests.authenticate_as('dee');
select public.community_request_buddy('ada_h');
select tests.authenticate_as('eli');
select public.community_request_buddy('ada_h');
select tests.authenticate_as('fay');
select public.community_request_buddy('ada_h');
select tests.authenticate_as('ada');
select public.community_respond_buddy((select id from public.community_friends where user_id = tests.get_user_id('eli')), false);
select public.community_respond_buddy((select id from public.community_friends where user_id = tests.get_user_id('fay')), true);

-- Ada shares her subject, not her tasks; exact time is on by default.
update public.community_enrollments set privacy = privacy || '{"shareCurrentSubject": true}'
  where user_id = tests.get_user_id('ada');
select public.community_heartbeat('studying', 's1', 'Anatomy', 't1', 'Read chapter 4', now() - interval '10 minutes');

create or replace function pg_temp.ada_seen_by(p_name text) returns jsonb language plpgsql as $$
declare v jsonb;
begin
  perform tests.authenticate_as(p_name);
  select jsonb_agg(to_jsonb(f) - 'id') into v from public.presence_feed f where f.user_id = tests.get_user_id('ada');
  reset role;
  return v;
end
$$;
create or replace function pg_temp.rows_seen_by(p_name text) returns int language plpgsql as $$
declare v int;
begin
  perform tests.authenticate_as(p_name);
  select count(*)::int into v from public.presence_feed;
  reset role;
  return v;
end
$$;

-- Who reads her row ------------------------------------------------------------------------------
select is(pg_temp.ada_seen_by('bo') -> 0 ->> 'state', 'studying', 'a fellow group member reads her state');
select is(pg_temp.ada_seen_by('bo') -> 0 ->> 'subject', 'Anatomy', 'and her subject, which she shares');
select is(pg_temp.ada_seen_by('bo') -> 0 -> 'task', 'null'::jsonb, 'but not her task, which she does not share');
select is((pg_temp.ada_seen_by('bo') -> 0 ->> 'since')::timestamptz, now() - interval '10 minutes',
  'and when her session started, as she shares exact time');
select is(pg_temp.ada_seen_by('fay') -> 0 ->> 'state', 'studying', 'an accepted buddy reads her row');
select is(pg_temp.ada_seen_by('ada') -> 0 ->> 'state', 'studying', 'she reads her own row');
select is(pg_temp.ada_seen_by('gus'), null, 'a stranger reads nothing');
select is(pg_temp.ada_seen_by('cy'), null, 'a member of another group of her fellow member reads nothing');
select is(pg_temp.ada_seen_by('dee'), null, 'a pending buddy request reads nothing');
select is(pg_temp.ada_seen_by('eli'), null, 'a declined one reads nothing');
select is(pg_temp.rows_seen_by('gus'), 0, 'a stranger reads no row of the table at all');

select tests.clear_authentication();
select throws_ok('select * from public.presence_feed', '42501', null, 'a signed-out caller cannot read the feed');
reset role;

-- The row is the board's presence, field for field ----------------------------------------------
select tests.authenticate_as('bo');
select is((select to_jsonb(f) - 'id' - 'user_id' from public.presence_feed f where f.user_id = tests.get_user_id('ada')),
  (select e -> 'presence' from jsonb_array_elements(public.community_get_group_board((select hall from g))) e
    where e ->> 'userId' = tests.get_user_id('ada')::text),
  'the row holds exactly the presence the group board shows of her');
reset role;
select is(pg_temp.ada_seen_by('bo') -> 0 -> 'last_seen', null, 'and no timestamp of her own: no last_seen in it');

-- Stealth mode: no row for anyone ---------------------------------------------------------------
select tests.authenticate_as('ada');
update public.community_enrollments set privacy = privacy || '{"stealthMode": true}'
  where user_id = tests.get_user_id('ada');
select is(pg_temp.ada_seen_by('bo'), null, 'in stealth mode a fellow member reads nothing');
select is(pg_temp.ada_seen_by('fay'), null, 'nor does her buddy');
select is(pg_temp.ada_seen_by('ada'), null, 'nor she herself');
select is((select count(*)::int from public.presence_feed where user_id = tests.get_user_id('ada')), 0,
  'the row is gone, not hidden');
select tests.authenticate_as('ada');
select public.community_heartbeat('break', 's1', 'Anatomy', null, null, null);
select is(pg_temp.ada_seen_by('bo'), null, 'a heartbeat in stealth mode writes no row');

select tests.authenticate_as('ada');
update public.community_enrollments set privacy = privacy || '{"stealthMode": false}'
  where user_id = tests.get_user_id('ada');
select is(pg_temp.ada_seen_by('bo') -> 0 ->> 'state', 'break', 'leaving stealth mode shows her again, as she is now');

-- Going offline, leaving the group ---------------------------------------------------------------
select tests.authenticate_as('ada');
select public.community_heartbeat('offline');
select is(pg_temp.ada_seen_by('bo') -> 0, '{"state": "offline", "subject": null, "task": null, "since": null,
  "user_id": null}'::jsonb || jsonb_build_object('user_id', tests.get_user_id('ada')),
  'going offline leaves a row that says offline and nothing else');

select tests.authenticate_as('bo');
select public.community_leave_group((select hall from g));
select is(pg_temp.ada_seen_by('bo'), null, 'a member who left the group reads nothing of her any more');
select is(pg_temp.ada_seen_by('fay') -> 0 ->> 'state', 'offline', 'while her buddy still does');

select tests.authenticate_as('ada');
select public.community_remove_buddy(tests.get_user_id('fay'));
select is(pg_temp.ada_seen_by('fay'), null, 'and a removed buddy reads nothing');

select * from finish();
rollback;

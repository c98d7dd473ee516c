-- Invites: the validity matrix (expiry null/future/past x max_uses null/under/at), redeem counting
-- uses, preview hiding why a token is invalid, buddy invites, and join requests.
begin;
select plan(16);

select tests.create_user('owner');
select tests.create_user('stranger');
select tests.create_user('guest');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Invite Only', 'private', 'invite', tests.get_user_id('owner'));

select tests.authenticate_as_service_role();
create temp table matrix as
select 'tok-' || e.label || '-' || u.label as token, e.label as expiry, u.label as uses,
       e.label <> 'past' and u.label <> 'at' as expected_valid, e.expires_at, u.max_uses, u.uses_count
from (values ('null', null::timestamptz), ('future', now() + interval '1 day'), ('past', now() - interval '1 second'))
       e(label, expires_at)
cross join (values ('null', null::int, 5), ('under', 3, 2), ('at', 3, 3)) u(label, max_uses, uses_count);
grant select on matrix to public;
create temp table invite_group as select id from public.groups where name = 'Invite Only';
grant select on invite_group to public;
insert into public.group_invites (token, group_id, created_by, expires_at, max_uses, uses_count)
select m.token, g.id, tests.get_user_id('owner'), m.expires_at, m.max_uses, m.uses_count
from matrix m cross join public.groups g;

select tests.authenticate_as('guest');
select is(
  (select array_agg(m.token order by m.token) from matrix m
   where (public.community_preview_invite(m.token) ->> 'valid')::boolean is distinct from m.expected_valid),
  null, 'preview is valid exactly for (expiry null or future) and (max_uses null or under)');
select is(public.community_preview_invite('tok-past-null'), '{"valid": false}'::jsonb,
  'an expired token is reported as invalid, revealing no group');
select is(public.community_preview_invite('tok-null-at'), '{"valid": false}'::jsonb, 'a used-up token is reported as invalid');
select is(public.community_preview_invite('no-such-token'), '{"valid": false}'::jsonb, 'an unknown token is reported as invalid');
select is(public.get_invite_details('tok-null-under'), public.community_preview_invite('tok-null-under'),
  'get_invite_details returns the same as community_preview_invite');
select is(public.community_preview_invite('tok-future-under') ->> 'group_name', 'Invite Only',
  'a valid preview names the group before joining');
select throws_ok($$select public.community_redeem_invite('tok-future-at')$$, 'P0002', 'invalid_invite',
  'redeeming a used-up invite is refused');
select throws_ok($$select public.community_redeem_invite('tok-past-under')$$, 'P0002', 'invalid_invite',
  'redeeming an expired invite is refused');
select lives_ok($$select public.community_redeem_invite('tok-future-under')$$, 'redeeming a valid invite succeeds');
select ok(public._is_group_member((select id from public.groups where name = 'Invite Only'), tests.get_user_id('guest')),
  'redeeming makes the guest a member');

select tests.authenticate_as_service_role();
select is((select uses_count from public.group_invites where token = 'tok-future-under'), 3, 'redeem increments uses_count');

select tests.authenticate_as('stranger');
select throws_ok($$select public.community_create_invite('group', (select id from invite_group), 7)$$,
  'P0003', 'not_group_owner', 'a stranger cannot create a group invite');
select throws_ok($$select public.community_join_group((select id from invite_group))$$,
  'P0003', 'invite_required', 'an invite-only group cannot be joined without a token');
select is((select count(*)::int from public.group_invites), 0, 'a stranger cannot read a group''s invites');

-- Buddy invites: created by anyone for themselves; closed store.
create temp table buddy_token as select public.community_create_invite('buddy', null, 7) as token;
select is(public.community_preview_invite((select token from buddy_token)) ->> 'type', 'buddy',
  'a buddy invite previews as a buddy invite');
select throws_ok($$select count(*) from public.buddy_invites$$, '42501', null,
  'buddy_invites cannot be read directly');

select * from finish();
rollback;

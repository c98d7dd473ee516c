-- An owner limits an invite's uses through the RPC: exactly that many people get in, the next is
-- refused and sees the invite as invalid; the three-argument call of the spec stays unlimited.
begin;
select plan(10);

select tests.create_user('owner');
select tests.create_user('first');
select tests.create_user('second');
select tests.create_user('third');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Two Seats', 'private', 'invite', tests.get_user_id('owner'));
create temp table seats as
select id as group_id, public.community_create_invite('group', id, 7, 2) as limited,
       public.community_create_invite('group', id, 7) as unlimited
from public.groups where name = 'Two Seats';
grant select on seats to public;

select throws_ok($$select public.community_create_invite('group', (select group_id from seats), 7, 0)$$,
  'P0004', 'invalid_max_uses', 'a use limit below 1 is refused');
select throws_ok($$select public.community_create_invite('group', (select group_id from seats), 7, 1001)$$,
  'P0004', 'invalid_max_uses', 'a use limit above 1000 is refused');
select is((select max_uses from public.group_invites where token = (select unlimited from seats)), null,
  'the spec''s three-argument call creates an unlimited invite');

select tests.authenticate_as('first');
select lives_ok($$select public.community_redeem_invite((select limited from seats))$$, 'the first guest gets in');
select tests.authenticate_as('second');
select lives_ok($$select public.community_redeem_invite((select limited from seats))$$, 'the second guest gets in');
select tests.authenticate_as('third');
select is(public.community_preview_invite((select limited from seats)), '{"valid": false}'::jsonb,
  'the used-up invite previews as invalid to the third guest');
select throws_ok($$select public.community_redeem_invite((select limited from seats))$$, 'P0002', 'invalid_invite',
  'the third guest is refused');
select lives_ok($$select public.community_redeem_invite((select unlimited from seats))$$,
  '... but gets in with the unlimited invite');

select tests.authenticate_as_service_role();
select is((select uses_count from public.group_invites where token = (select limited from seats)), 2,
  'the limited invite counted exactly two uses');
select is((select member_count from public.groups where id = (select group_id from seats)), 4,
  'owner and three guests are members');

select * from finish();
rollback;

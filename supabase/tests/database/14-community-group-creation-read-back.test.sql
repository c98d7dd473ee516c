-- Creating a private group the way supabase-js does (insert ... returning) succeeds for its creator,
-- and the creator's read-back right ends with the creation: after handing the group over and
-- leaving, the creator reads nothing of it.
begin;
select plan(8);

select tests.create_user('founder');
select tests.create_user('heir');
select tests.create_user('stranger');

select tests.authenticate_as('founder');
create temp table created (id uuid);
grant all on created to public;
select lives_ok(
  $$with g as (insert into public.groups (name, visibility, join_policy, created_by)
               values ('Quiet Pharmacology', 'private', 'invite', auth.uid()) returning id)
    insert into created select id from g$$,
  'the creator inserts a private group and reads it back in the same statement');
select is((select count(*)::int from public.groups where id = (select id from created)), 1,
  'the creator reads the group afterwards as its owner');
select is((select member_count from public.groups where id = (select id from created)), 1,
  'the read-back did not disturb member_count');

select tests.authenticate_as('stranger');
select is((select count(*)::int from public.groups where id = (select id from created)), 0,
  'a stranger does not read the new private group');
insert into public.groups (name, visibility, created_by) values ('Forged', 'private', tests.get_user_id('founder'));
select is((select created_by from public.groups where name = 'Forged'), tests.get_user_id('stranger'),
  'a group created in someone else''s name belongs to its real creator');

-- The founder hands the group to heir, who must be a member first.
select tests.authenticate_as('founder');
create temp table invite as select community_create_invite('group', (select id from created)) as token;
grant all on invite to public;
select tests.authenticate_as('heir');
select community_redeem_invite((select token from invite));
select tests.authenticate_as('founder');
select community_transfer_ownership((select id from created), tests.get_user_id('heir'));
select lives_ok($$select community_leave_group((select id from created))$$, 'the founder leaves after the transfer');
select is((select count(*)::int from public.groups where id = (select id from created)), 0,
  'the former creator no longer reads the private group');
select is((select count(*)::int from public.group_members where group_id = (select id from created)), 0,
  '... nor its members');

select * from finish();
rollback;

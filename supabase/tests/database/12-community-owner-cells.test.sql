-- The owner column of the roles table, granted: create invites, decline requests, remove a member,
-- change a role, delete the group (RPC and direct); a member leaves; service_role sees everything.
-- Every call that only has to run is followed by a look at the state it leaves.
begin;
select plan(19);

select tests.create_user('owner');
select tests.create_user('member');
select tests.create_user('applicant');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by)
values ('Owner Cells', 'private', 'request', tests.get_user_id('owner')),
       ('Doomed', 'public', 'open', tests.get_user_id('owner'));
select tests.authenticate_as_service_role();
create temp table oc as select id, name from public.groups;
grant select on oc to public;
insert into public.group_members (group_id, user_id) select id, tests.get_user_id('member') from oc;

select is((select count(*)::int from public.groups where name = 'Owner Cells'), 1, 'service_role reads a private group');

select tests.authenticate_as('applicant');
select is(public.community_join_group((select id from oc where name = 'Owner Cells')), 'pending', 'an applicant files a request');
select is(public.community_join_group((select id from oc where name = 'Owner Cells')), 'pending', 'asking twice keeps one request');

select tests.authenticate_as('owner');
select is((select count(*)::int from public.community_join_requests), 1, 'there is one pending request, visible to the owner');
select lives_ok($$select public.community_respond_join_request((select id from public.community_join_requests limit 1), false)$$,
  'an owner declines a join request');
select ok(not exists (select 1 from public.group_members where group_id = (select id from oc where name = 'Owner Cells')
                                                             and user_id = tests.get_user_id('applicant')),
  'declining adds no member');
select isnt(public.community_create_invite('group', (select id from oc where name = 'Owner Cells'), 7), null, 'an owner creates an invite');
select lives_ok($$select public.community_set_member_role((select id from oc where name = 'Owner Cells'), tests.get_user_id('member'), 'owner')$$,
  'an owner changes a member''s role');
select is((select role from public.group_members where group_id = (select id from oc where name = 'Owner Cells')
                                                   and user_id = tests.get_user_id('member')),
  'owner', 'the member is now an owner of the group');
select lives_ok($$select public.community_remove_member((select id from oc where name = 'Owner Cells'), tests.get_user_id('member'))$$,
  'an owner removes a member');
select is((select member_count from public.groups where name = 'Owner Cells'), 1, 'removing a member lowers member_count');

select tests.authenticate_as('member');
select lives_ok($$select public.community_leave_group((select id from oc where name = 'Doomed'))$$, 'a member leaves');
select is((select count(*)::int from public.groups where name = 'Doomed'), 1,
  'the public group stays visible to her after she left');
select lives_ok($$delete from public.groups where name = 'Doomed'$$, 'a member''s direct delete of a group runs');

select tests.authenticate_as_service_role();
select is((select count(*)::int from public.groups where name = 'Doomed'), 1,
  'her delete matched nothing: the group she could see is still there');
select is((select count(*)::int from public.group_members where group_id = (select id from oc where name = 'Doomed')
                                                              and user_id = tests.get_user_id('member')),
  0, 'leaving ended her membership');

select tests.authenticate_as('owner');
select lives_ok($$select public.community_delete_group((select id from oc where name = 'Doomed'))$$, 'an owner deletes the group');

select tests.authenticate_as_service_role();
select is((select count(*)::int from public.groups where id = (select id from oc where name = 'Doomed')), 0,
  'the deleted group is gone');
select is((select count(*)::int from public.group_members where group_id = (select id from oc where name = 'Doomed')), 0,
  'and every membership in it with it');

select * from finish();
rollback;

-- Each policy on storage.objects, granted and denied: alice reads, replaces and deletes her own
-- files and her group's icon; bob (another student) and anon read only what is public and change
-- nothing of hers, even with unfiltered updates and deletes (checked against the UPDATE and
-- DELETE policies alone), and cannot move a file of their own into her folder.
begin;
select plan(27);

select tests.create_user('alice');
select tests.create_user('bob');

select tests.authenticate_as('alice');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Icon Group', 'public', 'open', tests.get_user_id('alice'));
reset role;
create temp table places as
  select tests.get_user_id('alice')::text as alice, tests.get_user_id('bob')::text as bob, id::text as icon_group
  from public.groups where name = 'Icon Group';
grant select on places to public;

select tests.authenticate_as('alice');
select lives_ok($$insert into storage.objects (bucket_id, name, owner)
                  select 'avatars', alice || '/avatar.png', auth.uid() from places$$, 'alice uploads her avatar');
select lives_ok($$insert into storage.objects (bucket_id, name, owner)
                  select 'study-material', alice || '/notes.pdf', auth.uid() from places$$, 'alice uploads study material');
select lives_ok($$insert into storage.objects (bucket_id, name, owner)
                  select 'backups', alice || '/backup.json', auth.uid() from places$$, 'alice stores a backup file');
select lives_ok($$insert into storage.objects (bucket_id, name, owner)
                  select 'group-icons', icon_group || '/icon.png', auth.uid() from places$$, 'alice uploads her group''s icon');
select tests.authenticate_as('bob');
select lives_ok($$insert into storage.objects (bucket_id, name, owner)
                  select 'avatars', bob || '/avatar.png', auth.uid() from places$$, 'bob uploads his avatar');

-- Reads ------------------------------------------------------------------------------------------
select tests.authenticate_as('alice');
select is((select count(*)::int from storage.objects where bucket_id in ('study-material', 'backups')), 2,
  'alice reads her own private files');
select tests.authenticate_as('bob');
select is((select count(*)::int from storage.objects where bucket_id in ('study-material', 'backups')), 0,
  'bob cannot read alice''s private files');
select tests.clear_authentication();
select is((select array_agg(bucket_id order by bucket_id) from storage.objects where name like (select alice from places) || '/%'
           or name like (select icon_group from places) || '/%'),
  array['avatars', 'group-icons'], 'anon reads alice''s avatar and her group''s icon, and nothing private');

-- bob's unfiltered writes ------------------------------------------------------------------------
select tests.authenticate_as('bob');
select lives_ok($$update storage.objects set metadata = '{"defaced": true}'$$, 'bob''s unfiltered update of objects runs ...');
select lives_ok($$delete from storage.objects$$, 'bob''s unfiltered delete of objects runs ...');
select tests.authenticate_as_service_role();
select is((select count(*)::int from storage.objects where metadata ? 'defaced' and name not like (select bob from places) || '/%'), 0,
  '... and changes neither alice''s files nor her group''s icon');
select is((select array_agg(bucket_id order by bucket_id) from storage.objects), array['avatars', 'backups', 'group-icons', 'study-material'],
  '... and deletes none of them, only his own avatar');

select tests.authenticate_as('bob');
insert into storage.objects (bucket_id, name, owner) select 'avatars', bob || '/avatar.png', auth.uid() from places;
select throws_ok($$update storage.objects set name = (select alice from places) || '/avatar-2.png'$$, '42501', null,
  'bob cannot move his avatar into alice''s folder');
select throws_ok($$insert into storage.objects (bucket_id, name, owner)
                   select 'group-icons', icon_group || '/other.png', auth.uid() from places$$, '42501', null,
  'bob cannot upload an icon for alice''s group');

-- anon's unfiltered writes -----------------------------------------------------------------------
select tests.clear_authentication();
select lives_ok($$update storage.objects set metadata = '{"anon": true}'$$, 'anon''s unfiltered update of objects runs ...');
select lives_ok($$delete from storage.objects$$, 'anon''s unfiltered delete of objects runs ...');
select throws_ok($$insert into storage.objects (bucket_id, name) select 'avatars', alice || '/x.png' from places$$, '42501', null,
  'anon cannot upload into anyone''s folder');
select tests.authenticate_as_service_role();
select is((select count(*)::int from storage.objects where metadata ? 'anon'), 0, '... and changes no object');
select is((select count(*)::int from storage.objects), 5, '... and deletes no object');

-- alice replaces and deletes her own -------------------------------------------------------------
select tests.authenticate_as('alice');
select lives_ok($$update storage.objects set metadata = '{"version": 2}'$$, 'alice replaces her files with an unfiltered update');
select throws_ok($$update storage.objects set name = (select bob from places) || '/planted.png' where bucket_id = 'avatars'$$,
  '42501', null, 'alice cannot move her avatar into bob''s folder');
select tests.authenticate_as_service_role();
select is((select array_agg(bucket_id order by bucket_id) from storage.objects where metadata ->> 'version' = '2'),
  array['avatars', 'backups', 'group-icons', 'study-material'],
  '... and all four are replaced: her avatar, her private files and, as the owner, her group''s icon');
select is((select count(*)::int from storage.objects where metadata ->> 'version' = '2' and name like (select bob from places) || '/%'), 0,
  '... while bob''s avatar is untouched');

select tests.authenticate_as('alice');
select lives_ok($$delete from storage.objects where bucket_id = 'avatars'$$, 'alice deletes her avatar');
select lives_ok($$delete from storage.objects$$, 'alice deletes the rest of her files with an unfiltered delete');
select tests.authenticate_as_service_role();
select is((select count(*)::int from storage.objects where name not like (select bob from places) || '/%'), 0,
  '... and her avatar, her private files and her group''s icon are gone');
select is((select count(*)::int from storage.objects where name like (select bob from places) || '/%'), 1,
  '... while bob''s avatar is still there');

select * from finish();
rollback;

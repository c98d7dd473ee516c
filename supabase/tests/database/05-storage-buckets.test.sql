-- The four buckets with their visibility, type and size limits, and per-user folders in avatars,
-- study material, backups.
begin;
select plan(14);

select is(
  (select jsonb_object_agg(id, public) from storage.buckets where id in ('avatars', 'group-icons', 'study-material', 'backups')),
  '{"avatars": true, "group-icons": true, "study-material": false, "backups": false}'::jsonb,
  'the four buckets exist with their visibility');
select ok(not exists (select 1 from storage.buckets where id = 'notes'), 'the old notes bucket is not created');
select is((select row(allowed_mime_types, file_size_limit)::text from storage.buckets where id = 'avatars'),
  row(array['image/png', 'image/jpeg', 'image/webp', 'image/gif'], 2097152::bigint)::text,
  'avatars take only raster images (png, jpeg, webp, gif) up to 2 MiB: no html, svg or xhtml on the app''s origin');
select is((select row(allowed_mime_types, file_size_limit)::text from storage.buckets where id = 'group-icons'),
  row(array['image/png', 'image/jpeg', 'image/webp', 'image/gif'], 2097152::bigint)::text,
  'group icons take only raster images (png, jpeg, webp, gif) up to 2 MiB');
select is((select row(allowed_mime_types, file_size_limit)::text from storage.buckets where id = 'study-material'),
  row(null::text[], 52428800::bigint)::text,
  'study material takes any type up to 50 MiB');
select is((select row(allowed_mime_types, file_size_limit)::text from storage.buckets where id = 'backups'),
  row(array['application/json'], 52428800::bigint)::text,
  'backups take only application/json up to 50 MiB');

select tests.create_user('erin');
select tests.create_user('frank');

select tests.authenticate_as('erin');
select lives_ok(format($$insert into storage.objects (bucket_id, name, owner) values ('avatars', '%s/avatar.png', auth.uid())$$,
  tests.get_user_id('erin')), 'erin uploads an avatar into her own folder');
select lives_ok(format($$insert into storage.objects (bucket_id, name, owner) values ('backups', '%s/b1.json', auth.uid())$$,
  tests.get_user_id('erin')), 'erin stores a backup file in her own folder');
select throws_ok(format($$insert into storage.objects (bucket_id, name, owner) values ('avatars', '%s/avatar.png', auth.uid())$$,
  tests.get_user_id('frank')), '42501', null, 'erin cannot upload into frank''s folder');

select tests.authenticate_as('frank');
select is((select count(*)::int from storage.objects where bucket_id = 'avatars'), 1, 'frank sees erin''s avatar (public bucket)');
select is((select count(*)::int from storage.objects where bucket_id = 'backups'), 0, 'frank cannot see erin''s backup files');
select lives_ok($$delete from storage.objects where bucket_id = 'avatars'$$, 'frank''s delete of erin''s avatar runs ...');

select tests.clear_authentication();
select is((select count(*)::int from storage.objects where bucket_id = 'avatars'), 1, '... and the avatar is still there, readable by anon');
select is((select count(*)::int from storage.objects where bucket_id = 'backups'), 0, 'anon cannot see private files');

select * from finish();
rollback;

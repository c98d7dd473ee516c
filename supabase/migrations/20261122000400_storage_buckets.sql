-- Storage: the four buckets with their visibility, and the per-user folder policies
-- for avatars, study material and backups (group icons come with the groups migration).
-- Rules: docs/database.md#storage-buckets.

insert into storage.buckets (id, name, public)
values ('avatars', 'avatars', true),
       ('group-icons', 'group-icons', true),
       ('study-material', 'study-material', false),
       ('backups', 'backups', false)
on conflict (id) do update set public = excluded.public;

-- A user's files live under a folder named by their user id: "<uid>/avatar.png".

drop policy if exists "anyone reads avatars" on storage.objects;
create policy "anyone reads avatars" on storage.objects
  for select to anon, authenticated using (bucket_id = 'avatars');

drop policy if exists "users read their own files" on storage.objects;
create policy "users read their own files" on storage.objects
  for select to authenticated
  using (bucket_id in ('study-material', 'backups')
         and (storage.foldername(name))[1] = (select auth.uid())::text);

drop policy if exists "users upload into their own folder" on storage.objects;
create policy "users upload into their own folder" on storage.objects
  for insert to authenticated
  with check (bucket_id in ('avatars', 'study-material', 'backups')
              and (storage.foldername(name))[1] = (select auth.uid())::text);

drop policy if exists "users replace their own files" on storage.objects;
create policy "users replace their own files" on storage.objects
  for update to authenticated
  using (bucket_id in ('avatars', 'study-material', 'backups')
         and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id in ('avatars', 'study-material', 'backups')
              and (storage.foldername(name))[1] = (select auth.uid())::text);

drop policy if exists "users delete their own files" on storage.objects;
create policy "users delete their own files" on storage.objects
  for delete to authenticated
  using (bucket_id in ('avatars', 'study-material', 'backups')
         and (storage.foldername(name))[1] = (select auth.uid())::text);

-- Everyone may see which buckets exist and whether they are public (storage-js lists them).
drop policy if exists "anyone lists buckets" on storage.buckets;
create policy "anyone lists buckets" on storage.buckets
  for select to anon, authenticated using (true);

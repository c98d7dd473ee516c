-- Storage bucket limits: allowed MIME types and a size limit on each of the four buckets, so the
-- storage API refuses anything else at upload, here and on a hosted project alike.
-- Rules: docs/database.md#storage-buckets.
--
-- Why: avatars and group icons are public and served from the app's own origin. Without a type
-- list a student could upload text/html, SVG or XHTML there and have it served inline, where its
-- script runs with the app's origin. Raster images cannot carry script, so the two public buckets
-- take only those. Study material stays open to any type (it is private and downloaded, not
-- rendered); backups are JSON snapshots. 2 MiB is ample for an avatar or icon; 50 MiB matches the
-- largest upload the storage API accepts at all.
-- Idempotent (an upsert of the four rows): part of community-patch-v6.sql, so a live project that
-- applies the patch gets the limits even if its buckets were created by hand.

insert into storage.buckets (id, name, public, allowed_mime_types, file_size_limit)
values ('avatars', 'avatars', true, array['image/png', 'image/jpeg', 'image/webp', 'image/gif'], 2097152),
       ('group-icons', 'group-icons', true, array['image/png', 'image/jpeg', 'image/webp', 'image/gif'], 2097152),
       ('study-material', 'study-material', false, null, 52428800),
       ('backups', 'backups', false, array['application/json'], 52428800)
on conflict (id) do update
  set public = excluded.public,
      allowed_mime_types = excluded.allowed_mime_types,
      file_size_limit = excluded.file_size_limit;

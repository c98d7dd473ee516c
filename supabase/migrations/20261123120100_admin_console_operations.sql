-- Admin console operations that must happen in one transaction: replacing a user's current backup
-- (keeping the replaced one as an archived revision that can be restored), revoking an admin role
-- without ever removing the last one, and listing stored objects for the storage page. Service role only.
-- Spec: "Admin routes" (sync/repair-user-backup, storage, roles).
--
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

-- Tables -----------------------------------------------------------------------------------------

-- A backup that a repair replaced, exactly as it was (same id, payload and created_at), so that
-- admin_restore_archived_backup can put it back. No policies: only the service role reads it.
create table if not exists public.user_backup_archive (
  id uuid primary key default gen_random_uuid(),
  backup_id uuid not null,
  user_id uuid not null references public.users (id) on delete cascade,
  source text not null,
  app_version text,
  payload jsonb not null check (jsonb_typeof(payload) = 'object'),
  backup_created_at timestamptz not null,
  -- The backup row the repair made current in its place.
  replaced_by uuid,
  reason text not null check (char_length(reason) <= 500),
  archived_by text not null check (char_length(archived_by) <= 320),
  archived_at timestamptz not null default now()
);

-- Indexes ----------------------------------------------------------------------------------------

create index if not exists user_backup_archive_user_idx on public.user_backup_archive (user_id, archived_at desc);

-- Policies ---------------------------------------------------------------------------------------

alter table public.user_backup_archive enable row level security;

-- RPCs -------------------------------------------------------------------------------------------

-- Makes p_payload the user's current (newest) backup. The backup that was current is moved into
-- user_backup_archive, so the replacement is one step an admin can undo. p_expected_current is
-- the backup the admin saw as current (null: none); if another backup became current meanwhile,
-- nothing is written.
create or replace function public.admin_replace_current_backup(
  p_user_id uuid,
  p_expected_current uuid,
  p_payload jsonb,
  p_app_version text,
  p_reason text,
  p_archived_by text
) returns jsonb
language plpgsql
security invoker
set search_path = ''
as $$
declare
  v_current public.user_backups%rowtype;
  v_new_id uuid;
  v_archive_id uuid;
begin
  if p_payload is null or jsonb_typeof(p_payload) <> 'object' then
    raise exception 'invalid_payload' using errcode = 'P0001', hint = 'the new backup must be a JSON object';
  end if;
  if not exists (select 1 from public.users where id = p_user_id) then
    raise exception 'user_not_found' using errcode = 'P0002', hint = 'no user has that id';
  end if;
  -- Serialises repairs of one user: the second waits and then sees the first one's result.
  perform 1 from public.users where id = p_user_id for update;
  select * into v_current from public.user_backups
   where user_id = p_user_id order by created_at desc, id desc limit 1;
  if v_current.id is distinct from p_expected_current then
    raise exception 'backup_changed' using errcode = 'P0001',
      hint = 'the current backup changed since the repair was planned; look at the user again';
  end if;

  insert into public.user_backups (user_id, source, app_version, payload)
  values (p_user_id, 'restore', p_app_version, p_payload)
  returning id into v_new_id;

  if v_current.id is not null then
    insert into public.user_backup_archive
      (backup_id, user_id, source, app_version, payload, backup_created_at, replaced_by, reason, archived_by)
    values
      (v_current.id, v_current.user_id, v_current.source, v_current.app_version, v_current.payload,
       v_current.created_at, v_new_id, p_reason, p_archived_by)
    returning id into v_archive_id;
    delete from public.user_backups where id = v_current.id;
  end if;

  return jsonb_build_object('new_backup_id', v_new_id, 'archived_backup_id', v_archive_id,
                            'replaced_backup_id', v_current.id);
end
$$;

-- Undoes a repair: the archived backup returns with its id, payload and date, and the backup the
-- repair wrote in its place is removed (if it is still there).
create or replace function public.admin_restore_archived_backup(p_archive_id uuid) returns jsonb
language plpgsql
security invoker
set search_path = ''
as $$
declare
  v_archived public.user_backup_archive%rowtype;
  v_removed uuid;
begin
  select * into v_archived from public.user_backup_archive where id = p_archive_id for update;
  if not found then
    raise exception 'archive_not_found' using errcode = 'P0002', hint = 'no archived backup has that id';
  end if;
  if exists (select 1 from public.user_backups where id = v_archived.backup_id) then
    raise exception 'already_restored' using errcode = 'P0001', hint = 'a backup with that id exists again';
  end if;
  insert into public.user_backups (id, user_id, source, app_version, payload, created_at)
  values (v_archived.backup_id, v_archived.user_id, v_archived.source, v_archived.app_version,
          v_archived.payload, v_archived.backup_created_at);
  delete from public.user_backups where id = v_archived.replaced_by returning id into v_removed;
  delete from public.user_backup_archive where id = p_archive_id;
  return jsonb_build_object('restored_backup_id', v_archived.backup_id, 'removed_backup_id', v_removed);
end
$$;

-- Revokes p_role from a user, refusing to remove the last admin row: with none left, nobody
-- could unlock the console with a backend login through user_roles.
create or replace function public.admin_revoke_role(p_user_id uuid, p_role text) returns jsonb
language plpgsql
security invoker
set search_path = ''
as $$
declare
  v_remaining integer;
begin
  -- Concurrent revokes queue here, so two of them cannot each remove "not the last" admin.
  lock table public.user_roles in share row exclusive mode;
  if not exists (select 1 from public.user_roles where user_id = p_user_id and role = p_role) then
    raise exception 'role_not_found' using errcode = 'P0002', hint = 'that user does not hold that role';
  end if;
  if p_role = 'admin' then
    select count(*) into v_remaining from public.user_roles where role = 'admin' and user_id <> p_user_id;
    if v_remaining = 0 then
      raise exception 'last_admin' using errcode = 'P0001',
        hint = 'this is the last admin row; grant admin to someone else first';
    end if;
  end if;
  delete from public.user_roles where user_id = p_user_id and role = p_role;
  return jsonb_build_object('user_id', p_user_id, 'role', p_role, 'revoked', true);
end
$$;

-- Every stored object, for the storage page (the Data API does not serve the storage schema).
create or replace function public.admin_storage_objects() returns jsonb
language sql
stable
security invoker
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', o.id,
           'bucket', o.bucket_id,
           'name', o.name,
           'owner', o.owner,
           'bytes', coalesce((o.metadata ->> 'size')::bigint, 0),
           'mimetype', o.metadata ->> 'mimetype',
           'created_at', o.created_at,
           'updated_at', o.updated_at
         ) order by o.bucket_id, o.name), '[]'::jsonb)
    from storage.objects o
$$;

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.user_backup_archive from anon, authenticated;
revoke truncate, references, trigger on all tables in schema public from anon, authenticated;
revoke execute on function public.admin_replace_current_backup(uuid, uuid, jsonb, text, text, text) from public, anon, authenticated;
revoke execute on function public.admin_restore_archived_backup(uuid) from public, anon, authenticated;
revoke execute on function public.admin_revoke_role(uuid, text) from public, anon, authenticated;
revoke execute on function public.admin_storage_objects() from public, anon, authenticated;
grant execute on function public.admin_replace_current_backup(uuid, uuid, jsonb, text, text, text) to service_role;
grant execute on function public.admin_restore_archived_backup(uuid) to service_role;
grant execute on function public.admin_revoke_role(uuid, text) to service_role;
grant execute on function public.admin_storage_objects() to service_role;
grant select, insert, delete on public.user_backup_archive to service_role;
comment on function public.admin_replace_current_backup(uuid, uuid, jsonb, text, text, text) is
  'admin: makes a payload the user''s current backup, archiving the one it replaces (service role only)';
comment on function public.admin_restore_archived_backup(uuid) is
  'admin: puts an archived backup back and removes its replacement (service role only)';
comment on function public.admin_revoke_role(uuid, text) is
  'admin: revokes a role, never the last admin row (service role only)';
comment on function public.admin_storage_objects() is
  'admin: every stored object with its size, for the storage page (service role only)';

-- Deleting an account: one rule for the student deleting her own (delete_my_account) and for an
-- admin deleting her (DELETE /auth/v1/admin/users/:id, or any delete of her auth.users row), and a
-- copy of everything of hers (export_my_data).
-- Rules: docs/database.md#deleting-an-account.
--
-- The rule is a BEFORE DELETE trigger on auth.users, so every way the row goes applies it, in the
-- same transaction as the delete: either all of it happens or none.
--   1. Storage first: while storage.objects holds an object she owns (owner or owner_id), the delete
--      is refused with storage_objects_remain P0098. Supabase refuses to delete such a user too, and
--      blocks deleting storage.objects with SQL (the files would stay behind in the object store),
--      so the app or the console deletes her files through the Storage API first, then the account.
--   2. Her chat messages become anonymous tombstones: body emptied, sender cleared. Deleting them
--      would pull them out of the conversations they belong to and leave replies hanging; the
--      tombstone keeps the place ("message removed") and holds nothing of hers.
--   3. Each group she is the only owner of goes to the longest-standing moderator, else the
--      longest-standing member (a super admin, a member of every group for moderation, is never
--      picked); a group left with nobody else is deleted with everything in it.
--   4. Rows about her that name her without a foreign key: reports on her as a user, start alerts
--      on her as a buddy, queued push notifications that name her as the one who started studying.
--   5. The auth.users row goes; the foreign keys then remove the rest (public.users cascades to her
--      profile, settings, roles, sessions, statistics, tasks, backups and their archive, enrollment,
--      presence, buddies, alerts, devices, outbox rows, memberships, join requests, buddy invites,
--      reports she made) and clear where she is named as the one who acted (created_by of groups and
--      invites, responded_by, granted_by, deleted_by, resolved_by).
-- The audit log keeps its rows (ids only, no foreign key) and gains one: delete_account.
-- Idempotent: part of community-patch-v6.sql.

-- Helpers ----------------------------------------------------------------------------------------

create or replace function private.erase_account(p_user_id uuid) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_group record;
  v_heir uuid;
  v_handed integer := 0;
  v_closed integer := 0;
  v_messages integer;
begin
  if exists (select 1 from storage.objects o where o.owner = p_user_id or o.owner_id = p_user_id::text) then
    raise exception 'storage_objects_remain' using errcode = 'P0098',
      hint = 'delete the account''s stored files through the Storage API first';
  end if;

  update public.group_chat_messages
     set content = '', deleted_at = coalesce(deleted_at, now()), deleted_by = null, sender_id = null
   where sender_id = p_user_id;
  get diagnostics v_messages = row_count;

  -- Her groups' rows are locked first, in one order: two owners of one group deleting their
  -- accounts at once take turns, and the second (its next statement sees the first's commit) finds
  -- itself the only owner and hands the group on, so no group is left without one.
  perform 1 from public.groups g
  where g.id in (select m.group_id from public.group_members m where m.user_id = p_user_id and m.role = 'owner')
  order by g.id
  for update;

  for v_group in
    select m.group_id from public.group_members m
    where m.user_id = p_user_id and m.role = 'owner'
      and not exists (select 1 from public.group_members o
                      where o.group_id = m.group_id and o.role = 'owner' and o.user_id <> p_user_id)
    order by m.group_id
  loop
    select c.user_id into v_heir
    from public.group_members c
    where c.group_id = v_group.group_id and c.user_id <> p_user_id
      and not exists (select 1 from public.user_roles r where r.user_id = c.user_id and r.role = 'super_admin')
    order by (c.role = 'moderator') desc, c.joined_at, c.user_id
    limit 1;
    if v_heir is null then
      delete from public.groups where id = v_group.group_id;
      v_closed := v_closed + 1;
    else
      update public.group_members set role = 'owner' where group_id = v_group.group_id and user_id = v_heir;
      v_handed := v_handed + 1;
    end if;
  end loop;

  delete from public.community_reports where target_type = 'user' and target_id = p_user_id;
  delete from public.community_start_alerts where target_type = 'buddy' and target_id = p_user_id;
  delete from public.community_notification_outbox where payload -> 'actor' ->> 'id' = p_user_id::text;

  return jsonb_build_object('messages_removed', v_messages, 'groups_handed_over', v_handed, 'groups_closed', v_closed);
end
$$;
comment on function private.erase_account(uuid) is
  'internal: what deleting an account does before the foreign keys cascade (docs/database.md#deleting-an-account).';

create or replace function private.on_auth_user_deleted() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_summary jsonb := private.erase_account(old.id);
begin
  perform private.record_audit(
    -- The auth admin API (GoTrue, or localbase as the database owner) is the service acting.
    case when current_setting('role', true) = 'authenticated' and (select auth.uid()) = old.id then 'self'
         else coalesce(private.caller_admin_role(), 'service_role') end,
    'delete_account', old.id, 'users', old.id::text, v_summary);
  return old;
end
$$;

drop trigger if exists on_auth_user_deleted on auth.users;
create trigger on_auth_user_deleted before delete on auth.users
  for each row execute function private.on_auth_user_deleted();

-- RPCs -------------------------------------------------------------------------------------------

-- She confirms by typing her handle, or the word "delete" when she has none: a call that was not
-- meant (a stray request, a script run with the wrong token) does not know what to type.
create or replace function public.delete_my_account(p_confirm text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_expected text;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to delete your account';
  end if;
  select coalesce(p.handle, 'delete') into v_expected from public.user_profiles p where p.user_id = v_uid;
  if lower(btrim(coalesce(p_confirm, ''))) <> lower(coalesce(v_expected, 'delete')) then
    raise exception 'invalid_confirmation' using errcode = 'P0097',
      hint = 'type your handle (or "delete" if you have none) to confirm';
  end if;
  delete from auth.users where id = v_uid;
  return jsonb_build_object('deleted', v_uid);
end
$$;
comment on function public.delete_my_account(text) is
  'rpc: deletes the caller''s account by the account deletion rule, once she typed her handle (or "delete").';

-- Everything of hers, one JSON object per table that holds her rows (the same tables the deletion
-- empties). Others' ids appear only where they are her own rows' content (buddies, groups).
create or replace function public.export_my_data() returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to export your data';
  end if;
  return jsonb_build_object(
    'exported_at', now(),
    'user', (select to_jsonb(u) from public.users u where u.id = v_uid),
    'profile', (select to_jsonb(p) from public.user_profiles p where p.user_id = v_uid),
    'settings', (select to_jsonb(s) from public.user_settings s where s.user_id = v_uid),
    'roles', coalesce((select jsonb_agg(r.role order by r.role) from public.user_roles r where r.user_id = v_uid), '[]'),
    'stats_summary', (select to_jsonb(s) from public.user_stats_summary s where s.user_id = v_uid),
    'daily_stats', coalesce((select jsonb_agg(to_jsonb(d) order by d.study_day) from public.daily_user_stats d where d.user_id = v_uid), '[]'),
    'study_sessions', coalesce((select jsonb_agg(to_jsonb(s) order by s.started_at) from public.study_sessions s where s.user_id = v_uid), '[]'),
    'tasks', coalesce((select jsonb_agg(to_jsonb(t) order by t.created_at) from public.user_tasks t where t.user_id = v_uid), '[]'),
    'backups', coalesce((select jsonb_agg(to_jsonb(b) order by b.created_at) from public.user_backups b where b.user_id = v_uid), '[]'),
    'enrollment', (select to_jsonb(e) from public.community_enrollments e where e.user_id = v_uid),
    'presence', (select to_jsonb(p) from public.user_presence p where p.user_id = v_uid),
    'buddies', coalesce((select jsonb_agg(to_jsonb(f) order by f.created_at) from public.community_friends f
                         where f.user_id = v_uid or f.friend_id = v_uid), '[]'),
    'groups', coalesce((select jsonb_agg(jsonb_build_object('group_id', m.group_id, 'name', g.name, 'role', m.role,
                                                            'joined_at', m.joined_at) order by m.joined_at)
                        from public.group_members m join public.groups g on g.id = m.group_id
                        where m.user_id = v_uid), '[]'),
    'messages', coalesce((select jsonb_agg(jsonb_build_object('id', c.id, 'group_id', c.group_id, 'content', c.content,
                                                              'created_at', c.created_at, 'deleted_at', c.deleted_at)
                                           order by c.created_at)
                          from public.group_chat_messages c where c.sender_id = v_uid), '[]'),
    'join_requests', coalesce((select jsonb_agg(jsonb_build_object('group_id', j.group_id, 'status', j.status,
                                                                   'created_at', j.created_at) order by j.created_at)
                               from public.community_join_requests j where j.user_id = v_uid), '[]'),
    'reports', coalesce((select jsonb_agg(jsonb_build_object('id', r.id, 'target_type', r.target_type,
                                                             'target_id', r.target_id, 'reason', r.reason,
                                                             'status', r.status, 'created_at', r.created_at)
                                          order by r.created_at)
                         from public.community_reports r where r.reporter_id = v_uid), '[]'),
    'start_alerts', coalesce((select jsonb_agg(to_jsonb(a) order by a.target_type, a.target_id)
                              from public.community_start_alerts a where a.user_id = v_uid), '[]'),
    'device_tokens', (select count(*) from public.community_device_tokens t where t.user_id = v_uid)
  );
end
$$;
comment on function public.export_my_data() is
  'rpc: everything of the caller''s as one JSON object (device tokens only counted).';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.erase_account(uuid), private.on_auth_user_deleted()
  from public, anon, authenticated, service_role;
revoke execute on function public.delete_my_account(text), public.export_my_data() from public, anon;
grant execute on function public.delete_my_account(text), public.export_my_data() to authenticated;

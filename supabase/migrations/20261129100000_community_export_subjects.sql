-- "Download my data" holds her subjects: export_my_data gains a `subjects` section, now that
-- subjects are kept in the account (user_subjects), and says where her timer settings are: the
-- lengths and daily goal the account holds are columns of the `settings` row; `timer_settings`
-- stays the full set her newest backup carries. Otherwise unchanged, still SECURITY INVOKER.
-- Rules: docs/database.md#deleting-an-account (the export).
-- Idempotent: part of community-patch-v6.sql.

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.export_my_data() returns jsonb
language plpgsql
stable
security invoker
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_subjects jsonb := '[]';
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to export your data';
  end if;
  -- user_subjects arrives with app-complete.sql; on a project patched with the community bundle
  -- alone it does not exist, and the section is empty. Read dynamically, so the function compiles
  -- either way (still under her own policies: the function runs with her rights).
  if to_regclass('public.user_subjects') is not null then
    execute 'select coalesce(jsonb_agg(to_jsonb(s) order by s.created_at, s.id), ''[]'')
               from public.user_subjects s where s.user_id = $1'
      into v_subjects using v_uid;
  end if;
  -- The filters name her rows; her policies decide which of them she may see (a block placed on
  -- her is not hers to see, nor the messages of a group she is no longer in).
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
    'device_tokens', (select count(*) from public.community_device_tokens t where t.user_id = v_uid),
    'subjects', v_subjects,
    -- Her timer lengths and daily goal as the account holds them are columns of `settings`; this
    -- section is the full set her newest backup carries (with the phase-end sound and the other
    -- device choices the account does not hold), and when that backup was saved.
    'timer_settings', (select jsonb_build_object('saved_at', b.created_at, 'backup_id', b.id, 'settings', b.payload -> 'settings')
                       from public.user_backups b
                       where b.user_id = v_uid and jsonb_typeof(b.payload -> 'settings') = 'object'
                       order by b.created_at desc, b.id desc
                       limit 1)
  );
end
$$;
comment on function public.export_my_data() is
  'rpc: everything of the caller''s she may read, as one JSON object, read under her own policies (device tokens only counted; subjects when the table exists; the device timer settings of her newest backup).';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function public.export_my_data() from public, anon;
grant execute on function public.export_my_data() to authenticated;

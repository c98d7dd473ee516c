-- The admin console's Users page: per account what the auth API does not know (handle, last seen,
-- study sessions and minutes, storage used), in one read. E-mail, sign-up and last sign-in come from
-- the auth admin API (GET /auth/v1/admin/users), which the service role reaches on every backend;
-- the auth schema itself is not readable by the API roles on a hosted project. Service role only.
-- Rules: docs/database.md#admin-console.
--
-- Idempotent: part of the community patch bundle, applied repeatedly to live projects.

-- Every account's facts, keyed by user id. Storage counts every object the account owns, in
-- every bucket (`owner`, as storage-api writes it; `owner_id` holds the same id as text).
create or replace function public.admin_user_facts() returns jsonb
language sql
stable
security invoker
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'user_id', u.id,
           'handle', p.handle,
           'last_seen', pr.last_seen,
           'sessions', coalesce(s.total_sessions, 0),
           'minutes', coalesce(s.total_minutes, 0),
           'storage_bytes', coalesce(o.bytes, 0),
           'storage_objects', coalesce(o.objects, 0)
         ) order by u.created_at desc, u.id), '[]'::jsonb)
    from public.users u
    left join public.user_profiles p on p.user_id = u.id
    left join public.user_presence pr on pr.user_id = u.id
    left join public.user_stats_summary s on s.user_id = u.id
    left join (
      select owner, sum(coalesce((metadata ->> 'size')::bigint, 0)) as bytes, count(*) as objects
        from storage.objects
       where owner is not null
       group by owner
    ) o on o.owner = u.id
$$;

revoke execute on function public.admin_user_facts() from public, anon, authenticated;
grant execute on function public.admin_user_facts() to service_role;
comment on function public.admin_user_facts() is
  'admin: every account''s handle, last seen, sessions, minutes and storage used, for the users page (service role only)';

-- Reports are resolved by admins only, and read by admins with their context.
-- Rules: docs/database.md#reports.
--
-- A report is open until an admin resolves it once, with one resolution:
--   dismiss         nothing was wrong (status dismissed);
--   delete_message  the reported message becomes a tombstone (a message report only);
--   remove_member   the reported student leaves the group: the message's sender and group, or for a
--                   user report the group the admin names (never a group's last owner);
--   ban             recorded only: the console bans through the auth admin API, which the database
--                   cannot call (a message or user report).
-- The action and the resolution are one transaction, and the audit log gets its row in it too.
-- Only one resolution wins: the report row is locked, and a resolved report refuses another.
--
-- The reporter reads her own reports' status and when they were resolved, nothing more: the
-- resolution (whether someone was banned), who resolved and the note are not hers to read, so the
-- column grants leave them out. Another student reads nothing of a report (the existing policy).
-- Idempotent: part of community-patch-v6.sql.

-- Tables -----------------------------------------------------------------------------------------

alter table public.community_reports add column if not exists status text not null default 'open';
alter table public.community_reports add column if not exists resolution text;
alter table public.community_reports add column if not exists resolved_by uuid
  references public.users (id) on delete set null;
alter table public.community_reports add column if not exists resolved_at timestamptz;
alter table public.community_reports add column if not exists note text;

alter table public.community_reports drop constraint if exists community_reports_status_check;
alter table public.community_reports add constraint community_reports_status_check
  check (status in ('open', 'dismissed', 'actioned'));
alter table public.community_reports drop constraint if exists community_reports_resolution_check;
alter table public.community_reports add constraint community_reports_resolution_check
  check (case status
           when 'open' then resolution is null and resolved_at is null and resolved_by is null
           when 'dismissed' then resolution = 'dismiss' and resolved_at is not null
           else resolution in ('delete_message', 'remove_member', 'ban') and resolved_at is not null
         end);
alter table public.community_reports drop constraint if exists community_reports_note_check;
alter table public.community_reports add constraint community_reports_note_check
  check (note is null or char_length(note) <= 2000);

-- The queue: open reports, oldest first.
create index if not exists community_reports_open_idx on public.community_reports (created_at, id)
  where status = 'open';
create index if not exists community_reports_resolved_by_idx on public.community_reports (resolved_by)
  where resolved_by is not null;

-- Helpers ----------------------------------------------------------------------------------------

-- A message with who sent it, for the admin's context view (tombstones included, body empty).
create or replace function private.report_message_json(p_message public.group_chat_messages) returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select case when p_message.id is null then null else jsonb_build_object(
    'id', p_message.id, 'sender_id', p_message.sender_id,
    'sender_handle', (select p.handle from public.user_profiles p where p.user_id = p_message.sender_id),
    'content', p_message.content, 'created_at', p_message.created_at,
    'deleted_at', p_message.deleted_at, 'deleted_by', p_message.deleted_by) end
$$;

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.resolve_report(
  p_report_id uuid, p_resolution text, p_note text default null, p_group_id uuid default null
) returns public.community_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_role text := private.require_app_admin();
  v_report public.community_reports;
  v_message public.group_chat_messages;
  v_note text := nullif(btrim(coalesce(p_note, '')), '');
  v_user uuid;
  v_group uuid;
begin
  select * into v_report from public.community_reports where id = p_report_id for update;
  if not found then
    raise exception 'report_not_found' using errcode = 'P0093', hint = 'no report has that id';
  end if;
  if v_report.status <> 'open' then
    raise exception 'report_already_resolved' using errcode = 'P0094', hint = 'this report was resolved already';
  end if;
  if p_resolution is null or p_resolution not in ('dismiss', 'delete_message', 'remove_member', 'ban')
     or char_length(coalesce(v_note, '')) > 2000 then
    raise exception 'invalid_resolution' using errcode = 'P0095',
      hint = 'resolve with dismiss, delete_message, remove_member or ban, and a note of at most 2000 characters';
  end if;

  if v_report.target_type = 'message' then
    select * into v_message from public.group_chat_messages where id = v_report.target_id for update;
    v_user := v_message.sender_id;
    v_group := v_message.group_id;
  elsif v_report.target_type = 'user' then
    v_user := v_report.target_id;
    v_group := p_group_id;
  else
    v_group := v_report.target_id;
  end if;

  if p_resolution = 'delete_message' then
    if v_message.id is null then
      raise exception 'invalid_resolution' using errcode = 'P0095',
        hint = 'delete_message resolves a report on a message that still exists';
    end if;
    perform private.tombstone_message(v_message.id, (select auth.uid()));
  elsif p_resolution = 'remove_member' then
    if v_user is null or v_group is null or v_report.target_type = 'group'
       or not private.is_group_member(v_group, v_user) then
      raise exception 'invalid_resolution' using errcode = 'P0095',
        hint = 'remove_member needs a reported student who is a member (name the group for a user report)';
    end if;
    if private.has_group_role(v_group, v_user, array['owner'])
       and not exists (select 1 from public.group_members m
                       where m.group_id = v_group and m.role = 'owner' and m.user_id <> v_user) then
      raise exception 'last_owner' using errcode = 'P0005',
        hint = 'the student is the group''s only owner: make another member an owner first';
    end if;
    delete from public.group_members where group_id = v_group and user_id = v_user;
  elsif p_resolution = 'ban' and (v_user is null or v_report.target_type = 'group') then
    raise exception 'invalid_resolution' using errcode = 'P0095',
      hint = 'ban resolves a report on a message or a user';
  end if;

  update public.community_reports
     set status = case when p_resolution = 'dismiss' then 'dismissed' else 'actioned' end,
         resolution = p_resolution, resolved_by = (select auth.uid()), resolved_at = now(), note = v_note
   where id = p_report_id
  returning * into v_report;

  perform private.record_audit(v_role, 'resolve_report:' || p_resolution, v_user, 'community_reports',
    v_report.id::text,
    jsonb_strip_nulls(jsonb_build_object('target_type', v_report.target_type, 'target_id', v_report.target_id,
                                         'group_id', v_group, 'note', v_note)));
  return v_report;
end
$$;
comment on function public.resolve_report(uuid, text, text, uuid) is
  'rpc: (admins only) resolves an open report once, applying delete_message / remove_member in the same transaction; ban is recorded only.';

-- Open reports, oldest first, each with what an admin needs to judge it: the reported message and
-- the five messages before and after it in its group, the group, the reported student, and the
-- reporter's handle.
create or replace function public.admin_open_reports(p_limit integer default 20, p_offset integer default 0)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_limit integer := least(greatest(coalesce(p_limit, 20), 1), 100);
  v_offset integer := greatest(coalesce(p_offset, 0), 0);
begin
  perform private.require_app_admin();
  return coalesce((
    select jsonb_agg(item.value order by item.created_at, item.id)
    from (
      select r.created_at, r.id, jsonb_build_object(
        'report', jsonb_build_object('id', r.id, 'target_type', r.target_type, 'target_id', r.target_id,
                                     'reason', r.reason, 'created_at', r.created_at),
        'reporter', jsonb_build_object('id', r.reporter_id,
          'handle', (select p.handle from public.user_profiles p where p.user_id = r.reporter_id)),
        'reported_user', (select jsonb_build_object('id', p.user_id, 'handle', p.handle, 'display_name', p.display_name)
                          from public.user_profiles p
                          where p.user_id = case r.target_type when 'user' then r.target_id else m.sender_id end),
        'group', (select jsonb_build_object('id', g.id, 'name', g.name, 'slug', g.slug, 'visibility', g.visibility)
                  from public.groups g
                  where g.id = case r.target_type when 'group' then r.target_id else m.group_id end),
        'message', private.report_message_json(m),
        'before', coalesce((
          select jsonb_agg(private.report_message_json(b) order by b.created_at, b.id)
          from (select * from public.group_chat_messages x
                where m.id is not null and x.group_id = m.group_id and (x.created_at, x.id) < (m.created_at, m.id)
                order by x.created_at desc, x.id desc limit 5) b), '[]'::jsonb),
        'after', coalesce((
          select jsonb_agg(private.report_message_json(a) order by a.created_at, a.id)
          from (select * from public.group_chat_messages x
                where m.id is not null and x.group_id = m.group_id and (x.created_at, x.id) > (m.created_at, m.id)
                order by x.created_at, x.id limit 5) a), '[]'::jsonb)
      ) as value
      from (select * from public.community_reports o where o.status = 'open'
            order by o.created_at, o.id limit v_limit offset v_offset) r
      left join public.group_chat_messages m on r.target_type = 'message' and m.id = r.target_id
    ) item
  ), '[]'::jsonb);
end
$$;
comment on function public.admin_open_reports(integer, integer) is
  'rpc: (admins only) open reports oldest first, each with its message, five messages either side, group, reported student and reporter handle.';

-- Grants -----------------------------------------------------------------------------------------

-- The reporter reads her reports' status; the resolution, who resolved it and the note stay with admins.
revoke select on public.community_reports from authenticated;
grant select (id, reporter_id, target_type, target_id, reason, created_at, status, resolved_at)
  on public.community_reports to authenticated;

revoke execute on function private.report_message_json(public.group_chat_messages) from public, anon, authenticated, service_role;
revoke execute on function public.resolve_report(uuid, text, text, uuid), public.admin_open_reports(integer, integer)
  from public, anon;
grant execute on function public.resolve_report(uuid, text, text, uuid), public.admin_open_reports(integer, integer)
  to authenticated, service_role;

-- Community reports: a student reports a group, a message or a user; only the reporter and
-- service_role (the admin console) read a report.
-- Rules: docs/database.md#reports.
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

create table if not exists public.community_reports (
  id uuid primary key default gen_random_uuid(),
  reporter_id uuid not null references public.users (id) on delete cascade,
  target_type text not null check (target_type in ('group', 'message', 'user')),
  target_id uuid not null,
  reason text not null check (char_length(reason) between 1 and 2000),
  created_at timestamptz not null default now()
);

create index if not exists community_reports_reporter_id_idx on public.community_reports (reporter_id);
create index if not exists community_reports_target_idx on public.community_reports (target_type, target_id);

alter table public.community_reports enable row level security;

drop policy if exists "reporters read their own reports" on public.community_reports;
create policy "reporters read their own reports" on public.community_reports
  for select to authenticated
  using (reporter_id = (select auth.uid()));

create or replace function public.community_submit_report(p_target_type text, p_target_id uuid, p_reason text)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_reason text := btrim(coalesce(p_reason, ''));
  v_id uuid;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to report';
  end if;
  if p_target_type is null or p_target_type not in ('group', 'message', 'user') or p_target_id is null then
    raise exception 'invalid_target' using errcode = 'P0004', hint = 'report a group, a message or a user by id';
  end if;
  if char_length(v_reason) not between 1 and 2000 then
    raise exception 'invalid_reason' using errcode = 'P0004', hint = 'a reason is 1 to 2000 characters';
  end if;
  insert into public.community_reports (reporter_id, target_type, target_id, reason)
  values (v_uid, p_target_type, p_target_id, v_reason)
  returning id into v_id;
  return v_id;
end
$$;
comment on function public.community_submit_report(text, uuid, text) is
  'rpc: files a report on a group, message or user as the caller; returns its id.';

revoke all on public.community_reports from anon;
revoke insert, update, delete, truncate, references, trigger on public.community_reports from authenticated;
revoke execute on function public.community_submit_report(text, uuid, text) from public, anon;
grant execute on function public.community_submit_report(text, uuid, text) to authenticated, service_role;

-- Backups: immutable snapshots of a student's local data, each with a richness measure so that
-- "the best backup" can prefer the richest over the newest. Owner-only.
-- Rules: docs/database.md#backups (backup/best: richness before recency).

-- Richness is the number of records a snapshot holds: the items of every top-level array plus
-- the entries of every top-level object (e.g. {sessions: [3 items], tasks: [2], settings: {4 keys}}
-- has richness 9). Scalars count nothing. It is the one definition used everywhere: the generated
-- column below, the gateway's backup/best and the admin console's sync diagnostics.
create or replace function public.backup_richness(payload jsonb) returns integer
language sql immutable parallel safe
set search_path = ''
as $$
  select coalesce(sum(
    case jsonb_typeof(value)
      when 'array' then jsonb_array_length(value)
      when 'object' then (select count(*)::integer from jsonb_object_keys(value))
      else 0
    end), 0)::integer
  from jsonb_each(case when jsonb_typeof(payload) = 'object' then payload else '{}'::jsonb end)
$$;

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.user_backups (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  source text not null default 'manual' check (source in ('manual', 'auto', 'snapshot', 'import', 'restore')),
  app_version text check (app_version is null or char_length(app_version) <= 64),
  payload jsonb not null check (jsonb_typeof(payload) = 'object'),
  richness integer generated always as (public.backup_richness(payload)) stored,
  size_bytes integer generated always as (octet_length(payload::text)) stored,
  created_at timestamptz not null default now()
);

-- Indexes ----------------------------------------------------------------------------------------

-- "Best" is richness first, then recency: this index answers it with one descent per user.
create index if not exists user_backups_user_best_idx
  on public.user_backups (user_id, richness desc, created_at desc);
create index if not exists user_backups_user_latest_idx
  on public.user_backups (user_id, created_at desc);

-- Policies ---------------------------------------------------------------------------------------

alter table public.user_backups enable row level security;

drop policy if exists "users read their own backups" on public.user_backups;
create policy "users read their own backups" on public.user_backups
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users store their own backups" on public.user_backups;
create policy "users store their own backups" on public.user_backups
  for insert to authenticated with check (user_id = (select auth.uid()));
drop policy if exists "users delete their own backups" on public.user_backups;
create policy "users delete their own backups" on public.user_backups
  for delete to authenticated using (user_id = (select auth.uid()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.user_backups from anon;
-- A snapshot never changes once written; a correction is a new backup.
revoke update on public.user_backups from authenticated;
revoke truncate, references, trigger on all tables in schema public from anon, authenticated;

-- Pure and harmless: any caller may compute a payload's richness (the app shows it before upload).
comment on function public.backup_richness(jsonb) is
  'rpc: richness of a backup payload (items of top-level arrays + entries of top-level objects)';

-- Presence: one user_presence row per user, upserted by community_heartbeat; rows whose last_seen
-- is older than two minutes are offline, whether or not expire_stale_presence() has run yet.
-- Idempotent: part of community-patch-v6.sql.
-- Rules: docs/database.md#presence.

create table if not exists public.user_presence (
  user_id uuid primary key references public.users (id) on delete cascade,
  status text not null default 'offline' check (status in ('studying', 'break', 'idle', 'offline')),
  last_seen timestamptz not null default now(),
  subject_id text check (subject_id is null or char_length(subject_id) <= 100),
  subject_name text check (subject_name is null or char_length(subject_name) <= 200),
  task_id text check (task_id is null or char_length(task_id) <= 100),
  task_title text check (task_title is null or char_length(task_title) <= 500),
  session_started_at timestamptz,
  updated_at timestamptz not null default now()
);

-- Only rows not yet offline are candidates for expiry: the partial index keeps the 30-second sweep
-- cheap when nothing is stale, however many offline rows exist.
create index if not exists user_presence_live_last_seen_idx
  on public.user_presence (last_seen) where status <> 'offline';

-- The one definition of "live": every reader goes through it.
create or replace function private.effective_presence_status(p_status text, p_last_seen timestamptz)
returns text
language sql
stable
set search_path = ''
as $$
  select case when p_last_seen >= now() - interval '2 minutes' then p_status else 'offline' end
$$;

create or replace function public.community_heartbeat(
  p_state text,
  p_subject_id text default null,
  p_subject_name text default null,
  p_task_id text default null,
  p_task_title text default null,
  p_session_started_at timestamptz default null
) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_row public.user_presence%rowtype;
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  if p_state is null or p_state not in ('studying', 'break', 'idle', 'offline') then
    raise exception 'invalid_state' using errcode = 'P0030',
      hint = 'state is one of studying, break, idle, offline';
  end if;
  insert into public.user_presence as p (user_id, status, last_seen, subject_id, subject_name, task_id,
                                         task_title, session_started_at, updated_at)
    values (v_uid, p_state, now(), p_subject_id, p_subject_name, p_task_id, p_task_title,
            p_session_started_at, now())
    on conflict (user_id) do update
      set status = excluded.status,
          last_seen = now(),
          subject_id = excluded.subject_id,
          subject_name = excluded.subject_name,
          task_id = excluded.task_id,
          task_title = excluded.task_title,
          -- An existing session start is kept; the supplied one fills only an empty value.
          session_started_at = coalesce(p.session_started_at, excluded.session_started_at),
          updated_at = now()
    returning * into v_row;
  return jsonb_build_object('status', v_row.status, 'last_seen', v_row.last_seen,
                            'session_started_at', v_row.session_started_at);
end
$$;
comment on function public.community_heartbeat(text, text, text, text, text, timestamptz) is
  'rpc: upserts the caller''s presence row (state, subject, task, session start).';

-- Called every 30 s by localbase as the owner, and by pg_cron on hosted. Uses the partial index.
create or replace function public.expire_stale_presence() returns integer
language sql
security definer
set search_path = ''
as $$
  with expired as (
    update public.user_presence set status = 'offline', updated_at = now()
      where status <> 'offline' and last_seen < now() - interval '2 minutes'
      returning 1)
  select count(*)::integer from expired
$$;
comment on function public.expire_stale_presence() is
  'Marks presence rows older than two minutes offline and returns how many; run by the scheduler.';

-- Hosted: schedule with pg_cron when it is installed (every minute is its finest grain). Guarded,
-- so applying this file where pg_cron is missing (localbase, PGlite) does nothing.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_cron') then
    execute $cron$select cron.schedule('expire-stale-presence', '* * * * *',
                                       'select public.expire_stale_presence()')$cron$;
  end if;
end
$$;

alter table public.user_presence enable row level security;

drop policy if exists "users read their own presence" on public.user_presence;
create policy "users read their own presence" on public.user_presence
  for select to authenticated using (user_id = (select auth.uid()));

revoke all on public.user_presence from anon;
revoke insert, update, delete, truncate, references, trigger on public.user_presence from authenticated;
revoke execute on function private.effective_presence_status(text, timestamptz) from public, anon;
grant execute on function private.effective_presence_status(text, timestamptz) to authenticated;
revoke execute on function public.expire_stale_presence() from public, anon, authenticated;
revoke execute on function public.community_heartbeat(text, text, text, text, text, timestamptz)
  from public, anon;
grant execute on function public.community_heartbeat(text, text, text, text, text, timestamptz)
  to authenticated;

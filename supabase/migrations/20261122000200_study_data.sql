-- Study data: settled sessions, per-day and all-time statistics, and tasks, each owned by one user.
-- Statistics are written only by SECURITY DEFINER functions (record_study_session), never directly.
-- Rules: docs/database.md#study-data-and-statistics (the study day, points).

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.user_stats_summary (
  user_id uuid primary key references public.users (id) on delete cascade,
  total_minutes integer not null default 0 check (total_minutes >= 0),
  total_sessions integer not null default 0 check (total_sessions >= 0),
  total_correct integer not null default 0 check (total_correct >= 0),
  total_incorrect integer not null default 0 check (total_incorrect >= 0),
  total_skipped integer not null default 0 check (total_skipped >= 0),
  current_streak_days integer not null default 0 check (current_streak_days >= 0),
  longest_streak_days integer not null default 0 check (longest_streak_days >= 0),
  last_study_day date,
  updated_at timestamptz not null default now()
);

create table if not exists public.daily_user_stats (
  user_id uuid not null references public.users (id) on delete cascade,
  -- The user's own study day (day_offset_hours applied), not the UTC date.
  study_day date not null,
  minutes integer not null default 0 check (minutes between 0 and 1440),
  sessions integer not null default 0 check (sessions >= 0),
  correct integer not null default 0 check (correct >= 0),
  incorrect integer not null default 0 check (incorrect >= 0),
  skipped integer not null default 0 check (skipped >= 0),
  updated_at timestamptz not null default now(),
  primary key (user_id, study_day)
);

create table if not exists public.study_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  subject_id text check (subject_id is null or char_length(subject_id) <= 100),
  subject_name text check (subject_name is null or char_length(subject_name) <= 200),
  task_id text check (task_id is null or char_length(task_id) <= 100),
  task_title text check (task_title is null or char_length(task_title) <= 500),
  minutes integer not null check (minutes between 1 and 1440),
  correct integer not null default 0 check (correct >= 0),
  incorrect integer not null default 0 check (incorrect >= 0),
  skipped integer not null default 0 check (skipped >= 0),
  started_at timestamptz not null,
  ended_at timestamptz not null,
  study_day date not null,
  created_at timestamptz not null default now(),
  check (ended_at >= started_at)
);

create table if not exists public.user_tasks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 500),
  subject_id text check (subject_id is null or char_length(subject_id) <= 100),
  subject_name text check (subject_name is null or char_length(subject_name) <= 200),
  -- The study day the task is planned for; null for a backlog task.
  task_day date,
  done boolean not null default false,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Indexes ----------------------------------------------------------------------------------------

create index if not exists daily_user_stats_day_idx on public.daily_user_stats (study_day);
create index if not exists study_sessions_user_day_idx on public.study_sessions (user_id, study_day);
create index if not exists user_tasks_user_day_idx on public.user_tasks (user_id, task_day);

drop trigger if exists trg_touch_user_tasks on public.user_tasks;
create trigger trg_touch_user_tasks before update on public.user_tasks
  for each row execute function private.touch_updated_at();

-- Policies ---------------------------------------------------------------------------------------

alter table public.user_stats_summary enable row level security;
alter table public.daily_user_stats enable row level security;
alter table public.study_sessions enable row level security;
alter table public.user_tasks enable row level security;

drop policy if exists "users read their own summary" on public.user_stats_summary;
create policy "users read their own summary" on public.user_stats_summary
  for select to authenticated using (user_id = (select auth.uid()));

drop policy if exists "users read their own daily stats" on public.daily_user_stats;
create policy "users read their own daily stats" on public.daily_user_stats
  for select to authenticated using (user_id = (select auth.uid()));

drop policy if exists "users read their own sessions" on public.study_sessions;
create policy "users read their own sessions" on public.study_sessions
  for select to authenticated using (user_id = (select auth.uid()));

drop policy if exists "users read their own tasks" on public.user_tasks;
create policy "users read their own tasks" on public.user_tasks
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users add their own tasks" on public.user_tasks;
create policy "users add their own tasks" on public.user_tasks
  for insert to authenticated with check (user_id = (select auth.uid()));
drop policy if exists "users edit their own tasks" on public.user_tasks;
create policy "users edit their own tasks" on public.user_tasks
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
drop policy if exists "users delete their own tasks" on public.user_tasks;
create policy "users delete their own tasks" on public.user_tasks
  for delete to authenticated using (user_id = (select auth.uid()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.user_stats_summary, public.daily_user_stats, public.study_sessions, public.user_tasks
  from anon;
revoke insert, update, delete on public.user_stats_summary, public.daily_user_stats,
  public.study_sessions from authenticated;
-- RLS does not govern TRUNCATE, REFERENCES or TRIGGER: the API roles never get them.
revoke truncate, references, trigger on all tables in schema public from anon, authenticated;

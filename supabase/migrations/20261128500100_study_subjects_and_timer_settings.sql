-- Subjects and timer settings follow the student to every device, as her sessions and tasks do:
-- user_subjects (one row per subject, its id made on the device), and the timer lengths and daily
-- goal as checked columns of user_settings with the server's time of their last change.
-- Rules: docs/database.md#study-data-and-statistics (subjects, timer settings).

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.user_subjects (
  -- Made on the device (a uuid), so a subject has its final id before it reaches the server, and
  -- the tasks and sessions that name it carry the same id.
  id uuid primary key,
  user_id uuid not null references public.users (id) on delete cascade,
  name text not null check (char_length(btrim(name)) between 1 and 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.user_subjects is 'A student''s subjects, written by her devices through the Data API.';

-- Null: never chosen, the app's default applies (25 / 5 / 4, a goal of 120 minutes). The ranges are
-- the Settings page's, so a value no screen offers cannot be stored by any client.
alter table public.user_settings
  add column if not exists focus_minutes smallint check (focus_minutes between 1 and 180),
  add column if not exists break_minutes smallint check (break_minutes between 1 and 60),
  add column if not exists cycles smallint check (cycles between 1 and 12),
  add column if not exists daily_goal_minutes smallint check (daily_goal_minutes between 0 and 1440),
  -- When the four above last changed, stamped by the server (a device's edit is never older than
  -- the write that carries it), so devices tell which timer settings are newer than their own.
  add column if not exists timer_updated_at timestamptz;

-- Indexes ----------------------------------------------------------------------------------------

create index if not exists user_subjects_user_idx on public.user_subjects (user_id);

drop trigger if exists trg_touch_user_subjects on public.user_subjects;
create trigger trg_touch_user_subjects before update on public.user_subjects
  for each row execute function private.touch_updated_at();

-- Helpers ----------------------------------------------------------------------------------------

-- timer_updated_at is the server's: now() when a timer column changes, otherwise what it was,
-- whatever the writer sent for it.
create or replace function private.stamp_timer_settings() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    new.timer_updated_at := case
      when num_nonnulls(new.focus_minutes, new.break_minutes, new.cycles, new.daily_goal_minutes) > 0 then now()
    end;
  elsif (new.focus_minutes, new.break_minutes, new.cycles, new.daily_goal_minutes)
        is distinct from (old.focus_minutes, old.break_minutes, old.cycles, old.daily_goal_minutes) then
    new.timer_updated_at := now();
  else
    new.timer_updated_at := old.timer_updated_at;
  end if;
  return new;
end
$$;

drop trigger if exists trg_stamp_timer_settings on public.user_settings;
create trigger trg_stamp_timer_settings before insert or update on public.user_settings
  for each row execute function private.stamp_timer_settings();

-- Policies ---------------------------------------------------------------------------------------

alter table public.user_subjects enable row level security;

drop policy if exists "users read their own subjects" on public.user_subjects;
create policy "users read their own subjects" on public.user_subjects
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users add their own subjects" on public.user_subjects;
create policy "users add their own subjects" on public.user_subjects
  for insert to authenticated with check (user_id = (select auth.uid()));
drop policy if exists "users edit their own subjects" on public.user_subjects;
create policy "users edit their own subjects" on public.user_subjects
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
drop policy if exists "users delete their own subjects" on public.user_subjects;
create policy "users delete their own subjects" on public.user_subjects
  for delete to authenticated using (user_id = (select auth.uid()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.user_subjects from anon;
revoke truncate, references, trigger on public.user_subjects from authenticated;
grant select, insert, update, delete on public.user_subjects to authenticated;
revoke execute on function private.stamp_timer_settings() from public, anon, authenticated;

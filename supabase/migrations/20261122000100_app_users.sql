-- App users: the public.users row and its satellites (user_profiles, user_settings, user_roles),
-- the private schema for internals, and owner-only RLS on each table.
-- Rules: docs/database.md#accounts.

create schema if not exists private;
revoke all on schema private from public;
grant usage on schema private to authenticated, service_role;

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.users (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null check (char_length(username) between 1 and 320),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.users is 'One row per account; username is a buddy lookup key (the e-mail unless chosen).';

create table if not exists public.user_profiles (
  user_id uuid primary key references public.users (id) on delete cascade,
  handle text,
  display_name text check (display_name is null or char_length(display_name) <= 80),
  avatar_url text check (avatar_url is null or char_length(avatar_url) <= 2048),
  profile_data jsonb not null default '{}'::jsonb check (jsonb_typeof(profile_data) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table if not exists public.user_settings (
  user_id uuid primary key references public.users (id) on delete cascade,
  -- A user's study day starts this many hours after local midnight (a night owl's 01:30 session
  -- still counts for "yesterday" with an offset of 4).
  day_offset_hours smallint not null default 0 check (day_offset_hours between 0 and 23),
  -- Minutes east of UTC, as the browser reports it with the sign flipped (UTC+2 -> 120).
  timezone_offset_minutes smallint not null default 0 check (timezone_offset_minutes between -720 and 840),
  preferences jsonb not null default '{}'::jsonb check (jsonb_typeof(preferences) = 'object'),
  updated_at timestamptz not null default now()
);

create table if not exists public.user_roles (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.users (id) on delete cascade,
  role text not null check (role in ('super_admin', 'admin', 'moderator')),
  granted_by uuid references public.users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (user_id, role)
);

-- Indexes ----------------------------------------------------------------------------------------

create unique index if not exists users_username_lower_key on public.users (lower(username));
create unique index if not exists user_profiles_handle_lower_key on public.user_profiles (lower(handle))
  where handle is not null;
create index if not exists user_roles_role_idx on public.user_roles (role);

-- Helpers ----------------------------------------------------------------------------------------

-- Keeps updated_at honest on every table that has one.
create or replace function private.touch_updated_at() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;

drop trigger if exists trg_touch_users on public.users;
create trigger trg_touch_users before update on public.users
  for each row execute function private.touch_updated_at();
drop trigger if exists trg_touch_user_profiles on public.user_profiles;
create trigger trg_touch_user_profiles before update on public.user_profiles
  for each row execute function private.touch_updated_at();
drop trigger if exists trg_touch_user_settings on public.user_settings;
create trigger trg_touch_user_settings before update on public.user_settings
  for each row execute function private.touch_updated_at();

-- Policies ---------------------------------------------------------------------------------------

alter table public.users enable row level security;
alter table public.user_profiles enable row level security;
alter table public.user_settings enable row level security;
alter table public.user_roles enable row level security;

drop policy if exists "users read their own row" on public.users;
create policy "users read their own row" on public.users
  for select to authenticated using (id = (select auth.uid()));
drop policy if exists "users rename themselves" on public.users;
create policy "users rename themselves" on public.users
  for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

drop policy if exists "users read their own profile" on public.user_profiles;
create policy "users read their own profile" on public.user_profiles
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users create their own profile" on public.user_profiles;
create policy "users create their own profile" on public.user_profiles
  for insert to authenticated with check (user_id = (select auth.uid()));
drop policy if exists "users edit their own profile" on public.user_profiles;
create policy "users edit their own profile" on public.user_profiles
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

drop policy if exists "users read their own settings" on public.user_settings;
create policy "users read their own settings" on public.user_settings
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users create their own settings" on public.user_settings;
create policy "users create their own settings" on public.user_settings
  for insert to authenticated with check (user_id = (select auth.uid()));
drop policy if exists "users edit their own settings" on public.user_settings;
create policy "users edit their own settings" on public.user_settings
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- Roles are granted and revoked by the admin console with the service key; a user only sees
-- which roles they hold (login uses it to offer admin unlock).
drop policy if exists "users read their own roles" on public.user_roles;
create policy "users read their own roles" on public.user_roles
  for select to authenticated using (user_id = (select auth.uid()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.users, public.user_profiles, public.user_settings, public.user_roles from anon;
revoke insert, delete on public.users from authenticated;
revoke delete on public.user_profiles, public.user_settings from authenticated;
revoke insert, update, delete on public.user_roles from authenticated;
revoke execute on function private.touch_updated_at() from public;
-- RLS does not govern TRUNCATE, REFERENCES or TRIGGER: the API roles never get them.
revoke truncate, references, trigger on all tables in schema public from anon, authenticated;

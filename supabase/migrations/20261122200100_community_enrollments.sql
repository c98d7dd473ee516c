-- Community enrollment and privacy: one community_enrollments row per user, created by a trigger
-- on public.users (and backfilled for users created before this migration), plus handles.
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.
-- Rules: docs/database.md#community-enrollment-and-privacy.

create table if not exists public.community_enrollments (
  user_id uuid primary key references public.users (id) on delete cascade,
  consent boolean not null default false,
  consented_at timestamptz,
  -- Exactly six switches (docs/database.md#community-enrollment-and-privacy); shareExactTime is
  -- the one that starts true.
  privacy jsonb not null default jsonb_build_object(
    'stealthMode', false, 'shareTasks', false, 'shareSubjectBreakdown', false,
    'shareQuestionCounts', false, 'shareExactTime', true, 'shareCurrentSubject', false),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Rejects unknown keys and non-boolean values; a missing switch is also refused so every reader
-- can rely on all six being present.
create or replace function private.is_valid_privacy(p_privacy jsonb) returns boolean
language sql
immutable
set search_path = ''
as $$
  select jsonb_typeof(p_privacy) = 'object'
    and (select count(*) from jsonb_object_keys(p_privacy)) = 6
    and not exists (
      select 1 from jsonb_each(p_privacy) as e(key, value)
      where e.key not in ('stealthMode', 'shareTasks', 'shareSubjectBreakdown', 'shareQuestionCounts',
                          'shareExactTime', 'shareCurrentSubject')
         or jsonb_typeof(e.value) <> 'boolean')
$$;

-- A trigger rather than a check constraint, so a bad object is refused with a stable code.
create or replace function private.validate_privacy() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if not private.is_valid_privacy(new.privacy) then
    raise exception 'invalid_privacy' using errcode = 'P0012',
      hint = 'privacy holds exactly the six switches, each true or false';
  end if;
  return new;
end
$$;

drop trigger if exists trg_validate_privacy on public.community_enrollments;
create trigger trg_validate_privacy before insert or update on public.community_enrollments
  for each row execute function private.validate_privacy();

drop trigger if exists trg_touch_community_enrollments on public.community_enrollments;
create trigger trg_touch_community_enrollments before update on public.community_enrollments
  for each row execute function private.touch_updated_at();

-- Enrollment follows the public.users row, whoever creates it (ensure_user_rows, an admin, a test).
create or replace function private.enroll_new_user() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  insert into public.community_enrollments (user_id) values (new.id) on conflict (user_id) do nothing;
  return new;
end
$$;

drop trigger if exists trg_enroll_new_user on public.users;
create trigger trg_enroll_new_user after insert on public.users
  for each row execute function private.enroll_new_user();

-- Backfill: users created before this migration (a no-op on re-apply).
insert into public.community_enrollments (user_id)
  select id from public.users on conflict (user_id) do nothing;

create or replace function public.community_is_enrolled() returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from public.community_enrollments where user_id = (select auth.uid()))
$$;
comment on function public.community_is_enrolled() is 'rpc: whether the caller has a community_enrollments row.';

-- Handles: 3 to 24 letters, digits, _ and .; unique case-insensitively (the unique index on
-- lower(handle) already exists in app_users). Written to the column and to profile_data.
create or replace function public.community_bootstrap_profile(p_handle text) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_handle text := btrim(p_handle);
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  if v_handle is null or v_handle !~ '^[A-Za-z0-9_.]{3,24}$' then
    raise exception 'invalid_handle' using errcode = 'P0010',
      hint = 'a handle is 3 to 24 letters, digits, underscores or dots';
  end if;
  perform private.ensure_user_rows(v_uid);
  if exists (select 1 from public.user_profiles
             where lower(handle) = lower(v_handle) and user_id <> v_uid) then
    raise exception 'handle_taken' using errcode = 'P0011', hint = 'choose another handle';
  end if;
  begin
    update public.user_profiles
      set handle = v_handle,
          profile_data = profile_data || jsonb_build_object('community_handle', v_handle)
      where user_id = v_uid;
  exception when unique_violation then
    raise exception 'handle_taken' using errcode = 'P0011', hint = 'choose another handle';
  end;
  insert into public.community_enrollments (user_id) values (v_uid) on conflict (user_id) do nothing;
  return jsonb_build_object('user_id', v_uid, 'handle', v_handle);
end
$$;
comment on function public.community_bootstrap_profile(text) is
  'rpc: sets the caller''s handle (column and profile_data.community_handle) and ensures enrollment; idempotent.';

-- Policies ---------------------------------------------------------------------------------------

alter table public.community_enrollments enable row level security;

drop policy if exists "users read their own enrollment" on public.community_enrollments;
create policy "users read their own enrollment" on public.community_enrollments
  for select to authenticated using (user_id = (select auth.uid()));
drop policy if exists "users edit their own enrollment" on public.community_enrollments;
create policy "users edit their own enrollment" on public.community_enrollments
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- Grants -----------------------------------------------------------------------------------------

revoke all on public.community_enrollments from anon;
revoke insert, delete, truncate, references, trigger on public.community_enrollments from authenticated;
revoke execute on function private.is_valid_privacy(jsonb), private.validate_privacy(),
  private.enroll_new_user() from public;
revoke execute on function public.community_is_enrolled(), public.community_bootstrap_profile(text)
  from public, anon;
grant execute on function public.community_is_enrolled(), public.community_bootstrap_profile(text)
  to authenticated;

-- Handles as a database rule on every insert and update, by any role: 3-24 letters, digits, _ or .
-- (never an e-mail), unique case-insensitively, with profile_data.community_handle mirroring the column.
-- Rules: docs/database.md#handles. Idempotent: part of community-patch-v6.sql.

-- The one definition of a valid handle; community_bootstrap_profile checks the same pattern before
-- it writes, and the trigger below holds it for every other writer (a PATCH through the Data API,
-- the service role, an admin's SQL).
create or replace function private.is_valid_handle(p_handle text) returns boolean
language sql
immutable
set search_path = ''
as $$
  select p_handle ~ '^[A-Za-z0-9_.]{3,24}$'
$$;

-- Runs before every insert and update of a profile. Other readers (the buddy overview, the group
-- board, start alerts) show profile_data.community_handle when the column is empty, so that key is
-- a handle too: it is made to mirror the column, never a second value a student could set.
create or replace function private.enforce_handle_rules() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_legacy text := new.profile_data ->> 'community_handle';
begin
  -- An older client wrote the handle only into profile_data: it becomes the handle when it is a
  -- valid one nobody else holds, and is dropped otherwise, so an unrelated write never fails on it.
  if new.handle is null and (tg_op = 'INSERT' or old.handle is null) and v_legacy is not null
     and private.is_valid_handle(v_legacy)
     and not exists (select 1 from public.user_profiles p
                     where p.handle is not null and lower(p.handle) = lower(v_legacy) and p.user_id <> new.user_id) then
    new.handle := v_legacy;
  end if;
  if new.handle is not null and (tg_op = 'INSERT' or new.handle is distinct from old.handle) then
    if not private.is_valid_handle(new.handle) then
      raise exception 'invalid_handle' using errcode = 'P0010',
        hint = 'a handle is 3 to 24 letters, digits, underscores or dots';
    end if;
    -- The unique index on lower(handle) still decides a race; this answers the common case with
    -- the same code the RPC uses. Definer rights: RLS hides other students' profiles from the caller.
    if exists (select 1 from public.user_profiles p
               where p.handle is not null and lower(p.handle) = lower(new.handle) and p.user_id <> new.user_id) then
      raise exception 'handle_taken' using errcode = 'P0011', hint = 'choose another handle';
    end if;
  end if;
  new.profile_data := case
    when new.handle is null then new.profile_data - 'community_handle'
    else new.profile_data || jsonb_build_object('community_handle', new.handle) end;
  return new;
end
$$;

drop trigger if exists trg_enforce_handle_rules on public.user_profiles;
create trigger trg_enforce_handle_rules before insert or update on public.user_profiles
  for each row execute function private.enforce_handle_rules();

-- Rows written around the rule before it existed (a handle like an e-mail address, markup, or
-- thousands of characters) lose that handle: nobody could have chosen it through the app. Then
-- every remaining row is brought to the mirror rule (a legacy profile_data handle is promoted or
-- dropped by the trigger). Both statements find nothing to do when the patch is applied again.
update public.user_profiles set handle = null
  where handle is not null and not private.is_valid_handle(handle);
update public.user_profiles set profile_data = profile_data
  where (handle is null and profile_data ? 'community_handle')
     or (handle is not null and profile_data ->> 'community_handle' is distinct from handle);

revoke execute on function private.is_valid_handle(text), private.enforce_handle_rules()
  from public, anon, authenticated;

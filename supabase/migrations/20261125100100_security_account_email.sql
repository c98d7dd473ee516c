-- The account e-mail is its account's: students write no column of public.users and only their own profile
-- columns, a chosen username is never an address, and a buddy request to an e-mail reaches its owner.
-- Rules: docs/database.md#accounts and #buddies. Idempotent: part of community-patch-v6.sql.

-- Privileges ---------------------------------------------------------------------------------------

-- users.username is the sign-in e-mail (or a name chosen at sign-up). A student who could rename
-- herself to someone else's address would receive their buddy requests and make their sign-up fail
-- as "e-mail taken". The e-mail changes through auth; nothing else in the row is a student's to set.
drop policy if exists "users rename themselves" on public.users;
revoke insert, update, delete on public.users from anon, authenticated;

-- user_profiles: the student writes her handle (held by the handle trigger), display name, avatar
-- and profile_data, and names user_id (an upsert sets it again; the policies keep it hers);
-- created_at and updated_at are the database's. A table-wide revoke also drops column grants, so
-- this re-applies cleanly.
revoke insert, update on public.user_profiles from anon, authenticated;
grant insert (user_id, handle, display_name, avatar_url, profile_data),
  update (user_id, handle, display_name, avatar_url, profile_data) on public.user_profiles to authenticated;

-- Bootstrap ----------------------------------------------------------------------------------------

-- As before, with two guards on the username: a name chosen at sign-up (user metadata, which the
-- signing-up client sets) is kept only if it holds no '@', so nobody takes another person's address
-- as a name; and if the e-mail itself is somehow held by another row, the account gets its id
-- rather than failing the sign-up.
create or replace function private.ensure_user_rows(p_user_id uuid) returns text[]
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_auth auth.users%rowtype;
  v_username text;
  v_created text[] := '{}';
begin
  select * into v_auth from auth.users where id = p_user_id;
  if not found then
    raise exception 'user_not_found' using errcode = 'P0002', hint = 'no auth user has that id';
  end if;

  if not exists (select 1 from public.users where id = p_user_id) then
    v_username := nullif(btrim(v_auth.raw_user_meta_data ->> 'username'), '');
    if v_username is null or strpos(v_username, '@') > 0 or char_length(v_username) > 320
       or exists (select 1 from public.users where lower(username) = lower(v_username)) then
      v_username := nullif(lower(v_auth.email), '');
      if v_username is null or exists (select 1 from public.users where lower(username) = v_username) then
        v_username := p_user_id::text;
      end if;
    end if;
    insert into public.users (id, username) values (p_user_id, v_username)
      on conflict (id) do nothing;
    if found then v_created := array_append(v_created, 'users'); end if;
  end if;

  insert into public.user_profiles (user_id, display_name)
    values (p_user_id, nullif(left(btrim(v_auth.raw_user_meta_data ->> 'display_name'), 80), ''))
    on conflict (user_id) do nothing;
  if found then v_created := array_append(v_created, 'user_profiles'); end if;

  insert into public.user_settings (user_id) values (p_user_id) on conflict (user_id) do nothing;
  if found then v_created := array_append(v_created, 'user_settings'); end if;

  insert into public.user_stats_summary (user_id) values (p_user_id) on conflict (user_id) do nothing;
  if found then v_created := array_append(v_created, 'user_stats_summary'); end if;

  return v_created;
end
$$;

-- Buddy lookup -------------------------------------------------------------------------------------

-- An address (anything with an '@') finds only the account that signs in with it, read from auth;
-- a name finds a handle, then a username chosen at sign-up. A handle never holds an '@' (the handle
-- rule), and profile_data.community_handle mirrors the handle column, so neither is read here.
create or replace function private.find_user_by_handle(p_handle text) returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select case
    when strpos(btrim(p_handle), '@') > 0 then
      (select u.id from auth.users a join public.users u on u.id = a.id
        where lower(a.email) = lower(btrim(p_handle)) and a.deleted_at is null
        limit 1)
    else coalesce(
      (select p.user_id from public.user_profiles p
        where p.handle is not null and lower(p.handle) = lower(btrim(p_handle)) limit 1),
      (select u.id from public.users u where lower(u.username) = lower(btrim(p_handle)) limit 1))
  end
$$;

-- Existing rows ------------------------------------------------------------------------------------

-- An account whose username is an address other than its own e-mail took it around the rules (a
-- rename, or sign-up metadata): it gets its id, and then every account whose username is its id
-- gets its own e-mail back where that is free. Nothing changes when the patch is applied again.
update public.users u set username = u.id::text
  from auth.users a
  where a.id = u.id and strpos(u.username, '@') > 0 and lower(u.username) <> lower(coalesce(a.email, ''));
update public.users u set username = lower(a.email)
  from auth.users a
  where a.id = u.id and u.username = u.id::text and nullif(a.email, '') is not null
    and not exists (select 1 from public.users o where lower(o.username) = lower(a.email));

revoke execute on function private.ensure_user_rows(uuid), private.find_user_by_handle(text)
  from public, anon, authenticated;

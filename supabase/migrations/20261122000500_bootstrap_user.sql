-- Account bootstrap: every satellite row a user needs (users, user_profiles, user_settings,
-- user_stats_summary), created when the auth user appears and, idempotently, on demand.
-- Rules: docs/database.md#accounts (signup and login bootstrap every satellite row).

-- Creates whatever is missing for one user and names what it created. Safe to call repeatedly
-- and concurrently: every insert is `on conflict do nothing`.
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
    -- A chosen username wins when it is free; otherwise the e-mail (unique in auth) or the id.
    v_username := nullif(btrim(v_auth.raw_user_meta_data ->> 'username'), '');
    if v_username is null
       or exists (select 1 from public.users where lower(username) = lower(v_username)) then
      v_username := coalesce(nullif(lower(v_auth.email), ''), p_user_id::text);
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

create or replace function private.on_auth_user_created() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.ensure_user_rows(new.id);
  return new;
end
$$;

drop trigger if exists on_auth_user_created on auth.users;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.on_auth_user_created();

-- The caller's own bootstrap: returns {user_id, created: [...]} naming the rows it had to create
-- (an empty list when everything was already there).
create or replace function public.app_bootstrap_user() returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  return jsonb_build_object('user_id', v_uid, 'created', to_jsonb(private.ensure_user_rows(v_uid)));
end
$$;

-- Accounts that existed before this migration get their rows now.
select private.ensure_user_rows(id) from auth.users;

revoke execute on function private.ensure_user_rows(uuid) from public;
revoke execute on function private.on_auth_user_created() from public;
revoke execute on function public.app_bootstrap_user() from public, anon;
grant execute on function public.app_bootstrap_user() to authenticated, service_role;
comment on function public.app_bootstrap_user() is
  'rpc: creates the caller''s missing satellite rows; returns {user_id, created}';

-- The first file of the suite: installs the tests.* helpers every other file acts as people with.
--   tests.create_user('alice')            an auth user alice@test.local (triggers create her rows)
--   tests.get_user_id('alice')            her id
--   tests.authenticate_as('alice')        role authenticated with her JWT claims, for this transaction
--                                         (a session that has just entered her password)
--   tests.set_amr('[...]')                how that session proved who she is (GoTrue's `amr` claim)
--   tests.authenticate_as_service_role()  role service_role (bypasses RLS)
--   tests.clear_authentication()          role anon, as a signed-out client
--
-- `supabase test db` runs `pg_prove -r` over supabase/tests: every .sql file through its own psql
-- connection, one after another, in the byte order of their paths, so this file (000-...) runs
-- before database/* and zzz-teardown-tests-hooks.sql runs last. Each test file rolls its own
-- transaction back, so nothing it does is seen by the next; the helpers are therefore created here
-- OUTSIDE any transaction and committed, and the teardown file drops them again. Every statement is
-- idempotent, so a run that was interrupted before the teardown does not break the next one.
--
-- Never part of a migration or bundle: a hosted project gets these only while `supabase test db
-- --linked` runs.

-- Quiet the "already exists, skipping" notices of a rerun (this connection only).
set client_min_messages = warning;

-- `supabase test db` creates pgTAP itself before pg_prove starts (and drops it afterwards if it
-- created it); plain `pg_prove -r supabase/tests` on any database relies on this line.
create extension if not exists pgtap with schema extensions;

create schema if not exists tests;
grant usage on schema tests to anon, authenticated, service_role;

create or replace function tests.create_user(p_name text, p_email text default null) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_id uuid := gen_random_uuid();
  v_email text := coalesce(p_email, lower(p_name) || '@test.local');
begin
  insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  values (v_id, 'authenticated', 'authenticated', v_email, '', now(),
          '{"provider": "email", "providers": ["email"]}'::jsonb,
          jsonb_build_object('test_identifier', p_name), now(), now());
  return v_id;
end
$$;

create or replace function tests.get_user_id(p_name text) returns uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  select id into v_id from auth.users where raw_user_meta_data ->> 'test_identifier' = p_name;
  if v_id is null then
    raise exception 'tests.get_user_id: no test user named %', p_name;
  end if;
  return v_id;
end
$$;

-- Definer rights so that switching from one authenticated user to another can still read it.
create or replace function tests.get_user_email(p_name text) returns text
language sql
stable
security definer
set search_path = ''
as $$
  select email from auth.users where id = tests.get_user_id(p_name)
$$;

-- Invoker rights on purpose: `role` cannot be set inside a SECURITY DEFINER function.
create or replace function tests.authenticate_as(p_name text) returns void
language plpgsql
as $$
declare
  v_id uuid := tests.get_user_id(p_name);
  v_email text := tests.get_user_email(p_name);
begin
  perform set_config('role', 'authenticated', true);
  -- A session that has just signed in with its password, as GoTrue's access token says (`amr`).
  perform set_config('request.jwt.claims', jsonb_build_object(
    'sub', v_id, 'role', 'authenticated', 'aud', 'authenticated', 'email', v_email,
    'app_metadata', jsonb_build_object('provider', 'email'), 'is_anonymous', false,
    'amr', jsonb_build_array(jsonb_build_object('method', 'password', 'timestamp', extract(epoch from now())::bigint))
  )::text, true);
end
$$;

-- How the current session proved who she is (the `amr` claim: [{method, timestamp}]), for rules
-- that ask when the password was last entered; null removes the claim.
create or replace function tests.set_amr(p_amr jsonb) returns void
language plpgsql
as $$
begin
  perform set_config('request.jwt.claims', case when p_amr is null
    then (current_setting('request.jwt.claims', true)::jsonb - 'amr')::text
    else jsonb_set(current_setting('request.jwt.claims', true)::jsonb, '{amr}', p_amr)::text end, true);
end
$$;

create or replace function tests.authenticate_as_service_role() returns void
language plpgsql
as $$
begin
  perform set_config('role', 'service_role', true);
  perform set_config('request.jwt.claims', '{"role": "service_role"}', true);
end
$$;

create or replace function tests.clear_authentication() returns void
language plpgsql
as $$
begin
  perform set_config('role', 'anon', true);
  perform set_config('request.jwt.claims', '{"role": "anon"}', true);
end
$$;

grant execute on all functions in schema tests to anon, authenticated, service_role;

reset client_min_messages;

-- A pgTAP file like every other: the helpers above are in place, and visible to the API roles
-- that the files switch to.
begin;
select plan(8);

select has_schema('tests', 'the tests schema exists');
select has_function('tests', 'create_user', array['text', 'text'], 'tests.create_user(name, email) exists');
select has_function('tests', 'get_user_id', array['text'], 'tests.get_user_id(name) exists');
select has_function('tests', 'get_user_email', array['text'], 'tests.get_user_email(name) exists');
select has_function('tests', 'authenticate_as', array['text'], 'tests.authenticate_as(name) exists');
select has_function('tests', 'authenticate_as_service_role', array[]::text[], 'tests.authenticate_as_service_role() exists');
select has_function('tests', 'clear_authentication', array[]::text[], 'tests.clear_authentication() exists');
select ok(
  (select bool_and(has_function_privilege(role_name, p.oid, 'execute'))
     from pg_proc p
     cross join unnest(array['anon', 'authenticated', 'service_role']) as role_name
    where p.pronamespace = 'tests'::regnamespace),
  'anon, authenticated and service_role may call every helper (files switch identities as those roles)');

select * from finish();
rollback;

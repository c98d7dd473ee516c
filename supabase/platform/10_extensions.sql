-- Platform stand-in (LOCAL ONLY): the `extensions` schema with pgcrypto, as on hosted projects,
-- and the search path hosted databases use ("$user", public, extensions).
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists pgcrypto with schema extensions;

do $$
begin
  execute format('alter database %I set search_path = "$user", public, extensions', current_database());
end
$$;
set search_path = "$user", public, extensions;

-- Platform stand-in (LOCAL ONLY): the API roles every hosted Supabase project has.
-- anon and authenticated are subject to RLS; service_role bypasses it; authenticator is the
-- login role the Data API connects as and switches from. Idempotent: applied at every boot.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;

-- The statement timeouts a hosted project sets on the API roles (service_role has none). They apply
-- to a session that logs in as the role; the Data API switches roles inside one login, so it also
-- sets them per request, as PostgREST applies the impersonated role's settings
-- (localbase/src/statement-timeouts.ts, STATEMENT_TIMEOUTS_MS: the same values).
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';

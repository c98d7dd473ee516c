-- Platform stand-in (LOCAL ONLY): the privileges a hosted project gives the API roles in public.
-- Tables, sequences and functions created there are reachable by anon, authenticated and
-- service_role, so RLS policies and explicit revokes in our migrations are what protect them,
-- exactly as on hosted. Only default privileges are set: this file is re-applied at every boot, and
-- a blanket "grant ... on all tables" here would undo the revokes our migrations make.
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

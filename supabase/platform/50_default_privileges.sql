-- Platform stand-in (LOCAL ONLY): the privileges a hosted project gives the API roles in public.
-- Tables, sequences and functions created there are reachable by anon, authenticated and
-- service_role, so RLS policies and explicit revokes in our migrations are what protect them,
-- exactly as on hosted.
grant usage on schema public to anon, authenticated, service_role;
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
grant all on all functions in schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

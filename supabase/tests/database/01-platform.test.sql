-- The platform stand-in behaves as a hosted project: roles, auth functions, storage, realtime.
begin;
select plan(24);

select has_role('anon', 'the anon role exists');
select has_role('authenticated', 'the authenticated role exists');
select has_role('service_role', 'the service_role role exists');
select has_role('authenticator', 'the authenticator role exists');
select ok((select rolbypassrls from pg_roles where rolname = 'service_role'), 'service_role bypasses RLS');
select ok(not (select rolbypassrls from pg_roles where rolname = 'authenticated'), 'authenticated does not bypass RLS');
select ok(not (select rolbypassrls from pg_roles where rolname = 'anon'), 'anon does not bypass RLS');
select ok(pg_has_role('authenticator', 'authenticated', 'member'), 'authenticator can switch to authenticated');

select has_table('auth', 'users', 'auth.users exists');
select has_column('auth', 'users', 'encrypted_password', 'auth.users has encrypted_password as GoTrue names it');
select has_column('auth', 'users', 'raw_user_meta_data', 'auth.users has raw_user_meta_data');
select has_table('auth', 'identities', 'auth.identities exists');
select has_table('auth', 'sessions', 'auth.sessions exists');
select has_column('auth', 'refresh_tokens', 'session_id', 'auth.refresh_tokens belongs to a session');

-- auth.uid() reads request.jwt.claims ...
select set_config('request.jwt.claims',
  '{"sub": "6f2c1c7e-8f1a-4d2b-9a57-6c1e2b3d4f50", "role": "authenticated", "email": "a@b.c"}', true);
select is(auth.uid(), '6f2c1c7e-8f1a-4d2b-9a57-6c1e2b3d4f50'::uuid, 'auth.uid() reads sub from request.jwt.claims');
select is(auth.role(), 'authenticated', 'auth.role() reads role from request.jwt.claims');
select is(auth.email(), 'a@b.c', 'auth.email() reads email from request.jwt.claims');
select is(auth.jwt() ->> 'role', 'authenticated', 'auth.jwt() returns the claims as jsonb');
-- ... but the legacy per-claim GUC wins, as on hosted.
select set_config('request.jwt.claim.sub', '00000000-0000-4000-8000-000000000001', true);
select is(auth.uid(), '00000000-0000-4000-8000-000000000001'::uuid, 'request.jwt.claim.sub takes precedence');
select set_config('request.jwt.claim.sub', '', true);
select set_config('request.jwt.claims', '', true);
select is(auth.uid(), null, 'auth.uid() is null without claims');

select ok((select relrowsecurity from pg_class where oid = 'storage.objects'::regclass), 'storage.objects has RLS enabled');
select ok((select relrowsecurity from pg_class where oid = 'storage.buckets'::regclass), 'storage.buckets has RLS enabled');
select ok(exists (select 1 from pg_publication where pubname = 'supabase_realtime'), 'the supabase_realtime publication exists');
select is((select n.nspname::text from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pgcrypto'),
  'extensions', 'pgcrypto lives in the extensions schema');

select * from finish();
rollback;

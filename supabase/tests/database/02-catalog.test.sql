-- Catalog rules that hold for every table, present and future.
begin;
select plan(3);

select is(
  array(select format('%I.%I', n.nspname, c.relname)
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ('public', 'storage') and c.relkind in ('r', 'p') and not c.relrowsecurity
        order by 1),
  '{}'::text[],
  'every table in public and storage has row-level security enabled');

select is(
  array(select format('%s on %I.%I', p.privilege_type, p.table_schema, p.table_name)
        from information_schema.role_table_grants p
        where p.table_schema = 'public' and p.grantee in ('anon', 'authenticated')
          and p.privilege_type in ('TRUNCATE', 'REFERENCES', 'TRIGGER')
        order by 1),
  '{}'::text[],
  'the API roles hold no TRUNCATE, REFERENCES or TRIGGER privilege on public tables (RLS cannot guard them)');

select is(
  array(select format('%I.%I', n.nspname, c.relname)
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'private' and c.relkind in ('r', 'p')
          and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
        order by 1),
  '{}'::text[],
  'no table in the private schema is readable by the API roles');

select * from finish();
rollback;

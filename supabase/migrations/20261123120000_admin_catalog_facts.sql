-- Admin console: admin_catalog_facts(), the one call through which the console's verify page reads a
-- project's catalog (tables, columns, triggers, functions, policies, buckets, patch version), and
-- private.schema_patches, where applied bundles record their version. Service role only.
-- Spec: "Admin routes" (/__admin/verify), "Versioning" (the cumulative patch).
--
-- Every fact is one a reader can compare across PostgreSQL versions: names, format_type() types,
-- identity arguments, flags and grants, never deparsed expressions (their spelling changes between
-- releases). What a policy reads or calls comes from pg_depend, which records every relation and
-- function its expressions use, however they are spelled.
--
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

-- Tables -----------------------------------------------------------------------------------------

-- One row per (bundle, version) applied with the SQL editor or the console's apply button; the
-- bundles insert it themselves as their last statement. Migration runners keep their own records
-- (studyhall_meta.applied_migrations locally, supabase_migrations.schema_migrations for the CLI).
create table if not exists private.schema_patches (
  bundle text not null check (bundle ~ '^[a-z0-9-]+\.sql$'),
  version text not null check (version ~ '^\d{14}$'),
  applied_at timestamptz not null default now(),
  primary key (bundle, version)
);

-- RPCs -------------------------------------------------------------------------------------------

-- security definer: it reads the migration runners' own schemas, which no API role may read.
create or replace function public.admin_catalog_facts() returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_tables jsonb;
  v_functions jsonb;
  v_policies jsonb;
  v_buckets jsonb;
  v_runner text;
  v_cli text;
  v_bundles text;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'schema', n.nspname,
           'name', c.relname,
           'rls', c.relrowsecurity,
           'columns', (select coalesce(jsonb_agg(jsonb_build_object(
                                 'name', a.attname,
                                 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                                 'nullable', not a.attnotnull) order by a.attname), '[]'::jsonb)
                       from pg_catalog.pg_attribute a
                       where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped),
           'triggers', (select coalesce(jsonb_agg(jsonb_build_object(
                                  'name', t.tgname,
                                  'function', tn.nspname || '.' || tp.proname) order by t.tgname), '[]'::jsonb)
                        from pg_catalog.pg_trigger t
                        join pg_catalog.pg_proc tp on tp.oid = t.tgfoid
                        join pg_catalog.pg_namespace tn on tn.oid = tp.pronamespace
                        where t.tgrelid = c.oid and not t.tgisinternal)
         ) order by n.nspname, c.relname), '[]'::jsonb)
    into v_tables
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private') and c.relkind in ('r', 'p');

  select coalesce(jsonb_agg(jsonb_build_object(
           'schema', n.nspname,
           'name', p.proname,
           'arguments', pg_catalog.pg_get_function_identity_arguments(p.oid),
           'returns', pg_catalog.pg_get_function_result(p.oid),
           'security_definer', p.prosecdef,
           'search_path', (select substr(setting, length('search_path=') + 1)
                             from unnest(p.proconfig) as setting
                            where setting like 'search_path=%'),
           'executable_by', (select coalesce(jsonb_agg(r.rolname order by r.rolname), '[]'::jsonb)
                               from pg_catalog.pg_roles r
                              where r.rolname in ('anon', 'authenticated', 'service_role')
                                and pg_catalog.has_function_privilege(r.oid, p.oid, 'execute'))
         ) order by n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid)), '[]'::jsonb)
    into v_functions
    from pg_catalog.pg_proc p
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
   where n.nspname in ('public', 'private')
     -- what an extension installed is the extension's, not the project's
     and not exists (select 1 from pg_catalog.pg_depend d
                      where d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                        and d.objid = p.oid and d.deptype = 'e');

  select coalesce(jsonb_agg(jsonb_build_object(
           'schema', n.nspname,
           'table', c.relname,
           'name', pol.polname,
           'command', case pol.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
                                      when 'd' then 'DELETE' else 'ALL' end,
           'permissive', pol.polpermissive,
           'roles', case when pol.polroles = array[0::oid] then '["public"]'::jsonb
                         else (select coalesce(jsonb_agg(r.rolname order by r.rolname), '[]'::jsonb)
                                 from pg_catalog.pg_roles r where r.oid = any (pol.polroles)) end,
           -- Relations the expressions read, other than the policy's own row (a subquery on its
           -- own table counts: that is how a policy recurses).
           'reads', (select coalesce(jsonb_agg(distinct rn.nspname || '.' || rc.relname), '[]'::jsonb)
                       from pg_catalog.pg_depend d
                       join pg_catalog.pg_class rc on rc.oid = d.refobjid
                       join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
                      where d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass and d.objid = pol.oid
                        and d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
                        and d.deptype = 'n' and (d.refobjid <> pol.polrelid or d.refobjsubid = 0)),
           'calls', (select coalesce(jsonb_agg(distinct fn.nspname || '.' || fp.proname), '[]'::jsonb)
                       from pg_catalog.pg_depend d
                       join pg_catalog.pg_proc fp on fp.oid = d.refobjid
                       join pg_catalog.pg_namespace fn on fn.oid = fp.pronamespace
                      where d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass and d.objid = pol.oid
                        and d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass)
         ) order by n.nspname, c.relname, pol.polname), '[]'::jsonb)
    into v_policies
    from pg_catalog.pg_policy pol
    join pg_catalog.pg_class c on c.oid = pol.polrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private', 'storage');

  select coalesce(jsonb_agg(jsonb_build_object(
           'id', b.id,
           'public', coalesce(b.public, false),
           'file_size_limit', b.file_size_limit,
           'allowed_mime_types', to_jsonb(b.allowed_mime_types)
         ) order by b.id), '[]'::jsonb)
    into v_buckets
    from storage.buckets b;

  if to_regclass('studyhall_meta.applied_migrations') is not null then
    execute 'select max(left(name, 14)) from studyhall_meta.applied_migrations where name ~ ''^\d{14}_''' into v_runner;
  end if;
  if to_regclass('supabase_migrations.schema_migrations') is not null then
    execute 'select max(version) from supabase_migrations.schema_migrations where version ~ ''^\d{14}$''' into v_cli;
  end if;
  select max(sp.version) into v_bundles
    from private.schema_patches sp
   where sp.bundle in ('app-complete.sql', 'community-patch-v6.sql');

  return jsonb_build_object(
    'facts_version', 1,
    'server_version_num', current_setting('server_version_num')::integer,
    'tables', v_tables,
    'functions', v_functions,
    'policies', v_policies,
    'buckets', v_buckets,
    'patch_version', jsonb_build_object(
      'newest', nullif(greatest(coalesce(v_runner, ''), coalesce(v_cli, ''), coalesce(v_bundles, '')), ''),
      'migrations', v_runner,
      'supabase_cli', v_cli,
      'bundles', v_bundles));
end
$$;

-- Grants -----------------------------------------------------------------------------------------

revoke all on private.schema_patches from public;
revoke execute on function public.admin_catalog_facts() from public, anon, authenticated;
grant execute on function public.admin_catalog_facts() to service_role;
comment on function public.admin_catalog_facts() is
  'admin: the catalog facts the admin console''s verify page compares with the expected catalog (service role only)';

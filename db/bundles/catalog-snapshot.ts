// A comparable description of a database's whole catalog, as the bundle tests compare it: every
// schema but PostgreSQL's own and the migration bookkeeping (studyhall_meta), so what the
// migrations do to the platform's schemas (auth, storage, realtime) counts as much as public and
// private. Each section is a sorted list of lines that name objects by name, never by oid, so two
// databases built the same way give equal snapshots and any difference names the object.
// Objects that belong to an extension are described by the extension's name and version alone.
import type pg from 'pg';

/** Schemas the snapshot leaves out: PostgreSQL's own, and where applied migrations are recorded. */
const SKIPPED_SCHEMAS = `('pg_catalog', 'information_schema', 'pg_toast', 'studyhall_meta')`;

/** `n` is a pg_namespace row: true for the schemas the snapshot covers. */
const IN_SCOPE = `(n.nspname not in ${SKIPPED_SCHEMAS} and n.nspname !~ '^pg_(toast_)?temp_')`;

/** True for an object (of catalog `catalog`, oid `oid`) created by an extension. */
const FROM_EXTENSION = (catalog: string, oid: string) =>
  `exists (select 1 from pg_depend d where d.classid = '${catalog}'::regclass and d.objid = ${oid} and d.deptype = 'e')`;

const SNAPSHOT_QUERIES = {
  schemas: `
    select n.nspname || ' owner ' || pg_get_userbyid(n.nspowner) || ' acl ' || coalesce(n.nspacl::text, '-') as line
    from pg_namespace n where ${IN_SCOPE}`,
  extensions: `
    select e.extname || ' ' || e.extversion || ' in ' || n.nspname as line
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace`,
  roles: `
    select r.rolname || ' login ' || r.rolcanlogin || ' bypassrls ' || r.rolbypassrls || ' inherit ' || r.rolinherit
           || ' member of ' || coalesce((select string_agg(g.rolname, ',' order by g.rolname)
                                          from pg_auth_members m join pg_roles g on g.oid = m.roleid
                                          where m.member = r.oid), '-') as line
    from pg_roles r where r.rolname !~ '^pg_'`,
  relations: `
    select n.nspname || '.' || c.relname || ' kind ' || c.relkind::text || ' owner ' || pg_get_userbyid(c.relowner)
           || ' rls ' || c.relrowsecurity || ' forced ' || c.relforcerowsecurity
           || ' acl ' || coalesce(c.relacl::text, '-') || ' options ' || coalesce(c.reloptions::text, '-') as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${IN_SCOPE} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f', 'c') and not ${FROM_EXTENSION('pg_class', 'c.oid')}`,
  columns: `
    select n.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || case when a.attnotnull then ' not null' else '' end
           || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
           || case a.attidentity when '' then '' else ' identity ' || a.attidentity::text end
           || case a.attgenerated when '' then '' else ' generated ' || a.attgenerated::text end
           || coalesce(' collate ' || co.collname, '') || coalesce(' acl ' || a.attacl::text, '') as line
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
    left join pg_collation co on co.oid = a.attcollation and a.attcollation <> 0 and co.collname <> 'default'
    where ${IN_SCOPE} and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c') and a.attnum > 0 and not a.attisdropped
      and not ${FROM_EXTENSION('pg_class', 'c.oid')}`,
  constraints: `
    select n.nspname || '.' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
           || case when k.condeferrable then ' deferrable' else '' end as line
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    where ${IN_SCOPE} and not ${FROM_EXTENSION('pg_class', 'c.oid')}`,
  indexes: `
    select pg_get_indexdef(i.indexrelid) as line
    from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
    where ${IN_SCOPE} and not ${FROM_EXTENSION('pg_class', 'i.indrelid')}`,
  views: `
    select n.nspname || '.' || c.relname || ' ' || pg_get_viewdef(c.oid) as line
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${IN_SCOPE} and c.relkind in ('v', 'm') and not ${FROM_EXTENSION('pg_class', 'c.oid')}`,
  rules: `
    select schemaname || '.' || tablename || ' ' || rulename || ' ' || definition as line
    from pg_rules where schemaname not in ${SKIPPED_SCHEMAS}`,
  policies: `
    select schemaname || '.' || tablename || ' ' || policyname || ' ' || permissive || ' ' || cmd || ' '
           || array_to_string(roles, ',') || ' using ' || coalesce(qual, '-') || ' check ' || coalesce(with_check, '-') as line
    from pg_policies where schemaname not in ${SKIPPED_SCHEMAS}`,
  functions: `
    select n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') kind ' || p.prokind::text
           || ' owner ' || pg_get_userbyid(p.proowner) || ' acl ' || coalesce(p.proacl::text, '-')
           || ' definition ' || case when p.prokind = 'a' then '-' else md5(pg_get_functiondef(p.oid)) end as line
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where ${IN_SCOPE} and not ${FROM_EXTENSION('pg_proc', 'p.oid')}`,
  triggers: `
    select n.nspname || '.' || c.relname || ' ' || t.tgname || ' enabled ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid) as line
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where not t.tgisinternal and ${IN_SCOPE}`,
  eventTriggers: `
    select e.evtname || ' on ' || e.evtevent || ' enabled ' || e.evtenabled::text || ' runs ' || e.evtfoid::regprocedure::text
           || ' tags ' || coalesce(e.evttags::text, '-') as line
    from pg_event_trigger e`,
  types: `
    select n.nspname || '.' || t.typname || ' type ' || t.typtype::text || ' acl ' || coalesce(t.typacl::text, '-')
           || case t.typtype
                when 'e' then ' labels ' || (select string_agg(l.enumlabel, ',' order by l.enumsortorder)
                                             from pg_enum l where l.enumtypid = t.oid)
                when 'd' then ' over ' || format_type(t.typbasetype, t.typtypmod) || ' not null ' || t.typnotnull
                              || ' default ' || coalesce(t.typdefault, '-')
                              || ' checks ' || coalesce((select string_agg(pg_get_constraintdef(k.oid), ' and ' order by k.conname)
                                                         from pg_constraint k where k.contypid = t.oid), '-')
                else '' end as line
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where ${IN_SCOPE} and t.typtype in ('e', 'd', 'r', 'm') and not ${FROM_EXTENSION('pg_type', 't.oid')}`,
  sequences: `
    select n.nspname || '.' || c.relname || ' ' || format_type(s.seqtypid, null) || ' start ' || s.seqstart
           || ' by ' || s.seqincrement || ' min ' || s.seqmin || ' max ' || s.seqmax || ' cycle ' || s.seqcycle as line
    from pg_sequence s join pg_class c on c.oid = s.seqrelid join pg_namespace n on n.oid = c.relnamespace
    where ${IN_SCOPE}`,
  publications: `
    select p.pubname || ' all tables ' || p.puballtables || ' insert ' || p.pubinsert || ' update ' || p.pubupdate
           || ' delete ' || p.pubdelete || ' truncate ' || p.pubtruncate
           || ' tables ' || coalesce((select string_agg(t.schemaname || '.' || t.tablename, ',' order by t.schemaname, t.tablename)
                                      from pg_publication_tables t where t.pubname = p.pubname), '-') as line
    from pg_publication p`,
  defaultPrivileges: `
    select pg_get_userbyid(d.defaclrole) || ' in ' || coalesce(n.nspname, '*') || ' on ' || d.defaclobjtype::text
           || ' ' || d.defaclacl::text as line
    from pg_default_acl d left join pg_namespace n on n.oid = d.defaclnamespace`,
  comments: `
    select pg_describe_object(d.classoid, d.objoid, d.objsubid) || ': ' || d.description as line
    from pg_description d
    where d.objoid >= 16384 and not exists (select 1 from pg_depend e where e.classid = d.classoid
                                              and e.objid = d.objoid and e.deptype = 'e')`,
  // Not catalog but set by a migration: which buckets exist, and what each accepts.
  buckets: `
    select id || ' public ' || public || ' limit ' || coalesce(file_size_limit::text, '-')
           || ' types ' || coalesce(allowed_mime_types::text, '-') as line
    from storage.buckets`,
} as const;

export type CatalogSnapshot = Record<keyof typeof SNAPSHOT_QUERIES, string[]>;

export const SNAPSHOT_SECTIONS = Object.keys(SNAPSHOT_QUERIES) as (keyof CatalogSnapshot)[];

export async function snapshotCatalog(client: pg.ClientBase): Promise<CatalogSnapshot> {
  const snapshot = {} as CatalogSnapshot;
  for (const name of SNAPSHOT_SECTIONS) {
    const { rows } = await client.query<{ line: string }>(SNAPSHOT_QUERIES[name]);
    snapshot[name] = rows.map((row) => row.line).sort();
  }
  return snapshot;
}

// A comparable description of the app's catalog: tables and columns, policies, functions and
// triggers in the public and private schemas. Two databases with equal snapshots have the same
// schema as far as the bundle tests care.
import type pg from 'pg';

const SNAPSHOT_QUERIES = {
  columns: `select table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
              || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
            from information_schema.columns where table_schema in ('public', 'private')`,
  policies: `select schemaname || '.' || tablename || ' ' || policyname || ' ' || cmd || ' '
               || array_to_string(roles, ',') || ' ' || coalesce(qual, '') || ' ' || coalesce(with_check, '') as line
             from pg_policies where schemaname in ('public', 'private', 'storage')`,
  functions: `select n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') '
                || md5(p.prosrc) || ' ' || coalesce(array_to_string(p.proacl, ','), '') as line
              from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname in ('public', 'private')`,
  triggers: `select c.relname || ' ' || t.tgname || ' ' || pg_get_triggerdef(t.oid) as line
             from pg_trigger t join pg_class c on c.oid = t.tgrelid where not t.tgisinternal`,
} as const;

export type CatalogSnapshot = Record<keyof typeof SNAPSHOT_QUERIES, string[]>;

export async function snapshotCatalog(client: pg.PoolClient): Promise<CatalogSnapshot> {
  const snapshot = {} as CatalogSnapshot;
  for (const [name, sql] of Object.entries(SNAPSHOT_QUERIES) as [keyof CatalogSnapshot, string][]) {
    const { rows } = await client.query<{ line: string }>(sql);
    snapshot[name] = rows.map((row) => row.line).sort();
  }
  return snapshot;
}

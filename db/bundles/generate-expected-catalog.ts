// Derives the expected catalog from the migrations themselves: an empty in-memory PGlite gets the
// platform stand-in, then each migration in turn; after each one the catalog is fingerprinted, so
// every object learns which migrations (re)define it (it appears, its definition changes, or it is
// dropped and created again). At the end public.admin_catalog_facts() (the same function the
// console calls on a live project) describes the result. Objects no migration touched belong to
// the platform and are left out. An object's fix is the smallest bundle that holds one of its
// defining migrations.
import { createHash } from 'node:crypto';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { applyPlatform } from '../migrate.ts';
import { openPglite } from '../pglite.ts';
import { readMigrationFiles, type SqlFile } from '../sql-files.ts';
import { BUNDLES, bundleVersion } from './build.ts';
import { catalogFacts, PATCH_BUNDLE, type ExpectedCatalog } from './expected-catalog.ts';

// Fingerprints chosen so that a grant or a revoke (which rewrites catalog rows) does not count as
// defining an object, while `drop ... if exists; create ...` and `create or replace` with a new
// body do. Bucket rows are data: any migration that writes one (xmin changes) defines it.
const FINGERPRINT_SQL = `
  select 't:' || n.nspname || '.' || c.relname as key, c.oid::text as print
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private') and c.relkind in ('r', 'p')
  union all
  select 'c:' || n.nspname || '.' || c.relname || '.' || a.attname,
         c.oid::text || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private') and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
  union all
  select 'g:' || n.nspname || '.' || c.relname || '.' || t.tgname, t.oid::text
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private') and not t.tgisinternal
  union all
  select 'f:' || n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
         md5(p.prosrc) || ' ' || p.prosecdef::text || ' ' || coalesce(array_to_string(p.proconfig, ','), '')
           || ' ' || pg_get_function_result(p.oid)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname in ('public', 'private')
  union all
  select 'p:' || n.nspname || '.' || c.relname || '.' || pol.polname, pol.oid::text
    from pg_policy pol join pg_class c on c.oid = pol.polrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ('public', 'private', 'storage')
  union all
  select 'b:' || b.id, b.xmin::text from storage.buckets b`;

type Definitions = Map<string, string[]>;

async function fingerprint(client: pg.PoolClient): Promise<Map<string, string>> {
  const { rows } = await client.query<{ key: string; print: string }>(FINGERPRINT_SQL);
  return new Map(rows.map((row) => [row.key, row.print]));
}

/** Applies each migration in order and records, per object key, the migrations that defined it. */
async function traceDefinitions(client: pg.PoolClient, migrations: SqlFile[]): Promise<Definitions> {
  const definitions: Definitions = new Map();
  let before = await fingerprint(client);
  for (const migration of migrations) {
    try {
      await client.query('begin');
      await client.query(migration.sql);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
    const after = await fingerprint(client);
    for (const [key, print] of after) {
      if (before.get(key) === print) continue;
      definitions.set(key, [...(definitions.get(key) ?? []), migration.name]);
    }
    before = after;
  }
  return definitions;
}

interface BundleSpan {
  file: string;
  migrations: Set<string>;
}

/** The smallest bundle holding one of the defining migrations, and that migration (the newest of them). */
function provenanceOf(
  definitions: Definitions,
  key: string,
  spans: BundleSpan[],
): { migration: string; bundle: string } | undefined {
  const definedIn = definitions.get(key);
  if (!definedIn) return undefined;
  for (const span of spans) {
    const held = definedIn.filter((name) => span.migrations.has(name));
    const newest = held[held.length - 1];
    if (newest) return { migration: newest, bundle: span.file };
  }
  throw new Error(`${key} is defined by ${definedIn.join(', ')}, which no bundle holds`);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The expected catalog of the current migrations; `bundles` is the builder's output (file -> SQL). */
export async function generateExpectedCatalog(bundles: Map<string, string>): Promise<ExpectedCatalog> {
  const migrations = await readMigrationFiles();
  const spans: BundleSpan[] = BUNDLES.filter((definition) => bundles.has(definition.file))
    .map((definition) => ({
      file: definition.file,
      migrations: new Set(migrations.filter((m) => definition.includes(m)).map((m) => m.name)),
    }))
    .sort((a, b) => a.migrations.size - b.migrations.size);

  const pglite = await openPglite('memory://');
  const pool = new pg.Pool(createPgConfig(pglite));
  const client = await pool.connect();
  try {
    await applyPlatform(client);
    const definitions = await traceDefinitions(client, migrations);
    const { rows } = await client.query<{ facts: unknown }>('select public.admin_catalog_facts() as facts');
    const facts = catalogFacts.parse(rows[0]?.facts);
    const origin = (key: string) => provenanceOf(definitions, key, spans);

    const tables: ExpectedCatalog['tables'] = [];
    for (const table of facts.tables) {
      const where = origin(`t:${table.schema}.${table.name}`);
      if (!where) continue;
      const columns = table.columns.map((item) => ({
        ...item,
        ...(origin(`c:${table.schema}.${table.name}.${item.name}`) ?? where),
      }));
      const triggers = table.triggers.map((item) => ({
        ...item,
        ...(origin(`g:${table.schema}.${table.name}.${item.name}`) ?? where),
      }));
      tables.push({ ...table, columns, triggers, ...where });
    }
    const functions: ExpectedCatalog['functions'] = [];
    for (const fn of facts.functions) {
      const where = origin(`f:${fn.schema}.${fn.name}(${fn.arguments})`);
      if (where) functions.push({ ...fn, ...where });
    }
    const policies: ExpectedCatalog['policies'] = [];
    for (const policy of facts.policies) {
      const where = origin(`p:${policy.schema}.${policy.table}.${policy.name}`);
      if (where) policies.push({ ...policy, ...where });
    }
    const buckets: ExpectedCatalog['buckets'] = [];
    for (const bucket of facts.buckets) {
      const where = origin(`b:${bucket.id}`);
      if (where) buckets.push({ ...bucket, ...where });
    }

    const patchMigrations = migrations.filter((migration) =>
      spans.find((span) => span.file === PATCH_BUNDLE)?.migrations.has(migration.name),
    );
    return {
      generated_by: 'npm run db:bundle (db/bundles/generate-expected-catalog.ts); do not edit',
      patch: { bundle: PATCH_BUNDLE, version: bundleVersion(patchMigrations) },
      bundles: BUNDLES.filter((definition) => bundles.has(definition.file)).map((definition) => {
        const held = migrations.filter((migration) => definition.includes(migration));
        return {
          file: definition.file,
          version: bundleVersion(held),
          sha256: sha256(bundles.get(definition.file) ?? ''),
          migrations: held.map((m) => m.name),
        };
      }),
      tables,
      functions,
      policies,
      buckets,
    };
  } finally {
    client.release();
    await pool.end();
    await pglite.close();
  }
}

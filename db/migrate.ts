// Applies the platform stand-in (idempotent; again only when its files changed) and then pending
// migrations in order, recording applied ones in studyhall_meta.applied_migrations: outside
// `public`, so the Data API never exposes it, and not the Supabase CLI's
// supabase_migrations.schema_migrations, whose columns differ.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { migrationsDir } from './paths.ts';
import { readMigrationFiles, readPlatformFiles, type SqlFile } from './sql-files.ts';

export const MIGRATIONS_SCHEMA = 'studyhall_meta';
export const MIGRATIONS_TABLE = 'applied_migrations';
/** One row: the digest of the platform files last applied in full. */
export const PLATFORM_TABLE = 'applied_platform';

type Queryable = pg.PoolClient | pg.Client;

export async function applyPlatform(client: Queryable, files?: SqlFile[]): Promise<void> {
  for (const file of files ?? (await readPlatformFiles())) {
    try {
      await client.query('begin');
      await client.query(file.sql);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new Error(`platform file ${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

export interface MigrationResult {
  applied: string[];
  /** Whether the platform stand-in ran (a new database, or its files changed since). */
  platformApplied?: boolean;
}

/**
 * Whether the database has recorded exactly the migration files, in their order: the common case
 * of every boot after the first, answered with one query. node-pg-migrate's runner would come to
 * the same answer (nothing to run) through a lock and six catalog queries, which on PGlite took
 * 100-150 ms of a warm start; anything else (pending, unknown or reordered migrations) goes to the
 * runner, which applies or refuses as before.
 */
export async function migrationsUpToDate(client: Queryable): Promise<boolean> {
  const table = `${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`;
  const exists = await client.query<{ found: boolean }>(`select to_regclass($1) is not null as found`, [table]);
  if (!exists.rows[0]?.found) return false;
  const [files, recorded] = await Promise.all([
    readMigrationFiles(),
    client.query<{ name: string }>(`select name from ${table} order by run_on, id`),
  ]);
  const names = recorded.rows.map((row) => row.name);
  return (
    names.length === files.length && files.every((file, index) => file.name.replace(/\.sql$/, '') === names[index])
  );
}

/** Applies pending migrations, each in its own transaction; returns the names it applied. */
export async function applyMigrations(
  client: Queryable,
  log: (line: string) => void = () => {},
): Promise<MigrationResult> {
  if (await migrationsUpToDate(client)) return { applied: [] };
  // Loaded only when there may be something to run: a warm start never needs it.
  const { runner } = await import('node-pg-migrate');
  const ran = await runner({
    dbClient: client as pg.ClientBase,
    dir: migrationsDir,
    migrationsSchema: MIGRATIONS_SCHEMA,
    createMigrationsSchema: true,
    migrationsTable: MIGRATIONS_TABLE,
    direction: 'up',
    checkOrder: true,
    ignorePattern: '(\\..*)|(.*\\.md)',
    log: () => {},
    logger: { debug: () => {}, info: () => {}, warn: log, error: log },
  });
  return { applied: ran.map((migration) => migration.name) };
}

/** The platform files' names and contents, as one digest. */
export function platformDigest(files: SqlFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name}\0${file.sql}\0`);
  return hash.digest('hex');
}

/**
 * Applies the platform stand-in unless this database already holds exactly these files, applied in
 * full (their digest is recorded after the last one commits). The files are idempotent, so this
 * changes nothing but time: re-running them was about a sixth of opening a warm database
 * (tools/bench/platform-skip.bench.ts). Returns whether it applied them.
 */
export async function applyPlatformIfChanged(client: Queryable): Promise<boolean> {
  const files = await readPlatformFiles();
  const digest = platformDigest(files);
  const table = `${MIGRATIONS_SCHEMA}.${PLATFORM_TABLE}`;
  const exists = await client.query<{ found: boolean }>(`select to_regclass($1) is not null as found`, [table]);
  const recorded = exists.rows[0]?.found
    ? (await client.query<{ digest: string }>(`select digest from ${table}`)).rows[0]?.digest
    : undefined;
  if (recorded === digest) return false;
  await applyPlatform(client, files);
  await client.query(`create schema if not exists ${MIGRATIONS_SCHEMA}`);
  await client.query(
    `create table if not exists ${table} (digest text not null, applied_at timestamptz not null default now())`,
  );
  // One statement, so the table never holds zero or two rows.
  await client.query(`with replaced as (delete from ${table}) insert into ${table} (digest) values ($1)`, [digest]);
  return true;
}

/** Platform, then migrations: what every boot and every test database runs. */
export async function migrateDatabase(client: Queryable, log?: (line: string) => void): Promise<MigrationResult> {
  const platformApplied = await applyPlatformIfChanged(client);
  return { ...(await applyMigrations(client, log)), platformApplied };
}

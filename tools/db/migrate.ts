// Applies the platform stand-in (idempotent, every boot) and then pending migrations in order,
// recording applied ones in studyhall_meta.applied_migrations: outside `public`, so the Data API
// never exposes it, and not the Supabase CLI's supabase_migrations.schema_migrations, whose
// columns differ.
import { runner } from 'node-pg-migrate';
import type pg from 'pg';
import { migrationsDir } from './paths.ts';
import { readPlatformFiles } from './sql-files.ts';

export const MIGRATIONS_SCHEMA = 'studyhall_meta';
export const MIGRATIONS_TABLE = 'applied_migrations';

type Queryable = pg.PoolClient | pg.Client;

export async function applyPlatform(client: Queryable): Promise<void> {
  for (const file of await readPlatformFiles()) {
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
}

/** Applies pending migrations, each in its own transaction; returns the names it applied. */
export async function applyMigrations(client: Queryable, log: (line: string) => void = () => {}): Promise<MigrationResult> {
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

/** Platform, then migrations: what every boot and every test database runs. */
export async function migrateDatabase(client: Queryable, log?: (line: string) => void): Promise<MigrationResult> {
  await applyPlatform(client);
  return applyMigrations(client, log);
}

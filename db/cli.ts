// `npm run db:migrate`: apply platform + pending migrations to DATA_DIR's database (the embedded
// PostgreSQL, or PGlite: database.ts), or DATABASE_URL.
// `npm run db:reset`: recreate that database from scratch, then migrate. On DATABASE_URL the reset
// drops every studyhall schema and needs `-- --yes`, because it destroys a server's data.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { readEnv, type EngineSetting } from '#config/env.ts';
import { closeOnSignals, openDatabase } from './database.ts';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts';
import { clusterDir, stopOrphan } from './embedded-postgres.ts';
import { pgliteDir } from './engine-choice.ts';

/** The variables `npm run db:*` reads (their rules live in config/env.ts). */
const DB_ENV = ['DATA_DIR', 'DATABASE_URL', 'LOCALBASE_ENGINE'] as const;

/** Everything our platform stand-in and migrations create on a dedicated Postgres. */
const STUDYHALL_SCHEMAS = ['public', 'private', 'auth', 'storage', 'extensions', 'studyhall_meta', 'tests'];

async function migrate(
  dataDir: string,
  databaseUrl: string | undefined,
  engine: EngineSetting | undefined,
): Promise<void> {
  const database = await openDatabase({ dataDir, databaseUrl, engine, log: (line) => console.error(`db: ${line}`) });
  const unhook = closeOnSignals(database.close);
  const { applied } = database.migrations;
  console.log(
    applied.length === 0
      ? `db:migrate: ${database.location} is up to date`
      : `db:migrate: applied ${applied.length} migration(s) to ${database.location}:\n${applied.map((name) => `  ${name}`).join('\n')}`,
  );
  unhook();
  await database.close();
}

/** Removes both embedded databases (the cluster and PGlite's); the next open creates the default one. */
async function resetEmbedded(dataDir: string): Promise<void> {
  // Hold the lock while deleting so a running server is never pulled out from under itself.
  const unlock = await lockDataDir(dataDir);
  const removed = [clusterDir(dataDir), pgliteDir(dataDir)].filter((dir) => existsSync(dir));
  try {
    // A postmaster a killed server left on the cluster must not keep writing into what is removed.
    await stopOrphan(clusterDir(dataDir));
    for (const dir of removed) await rm(dir, { recursive: true, force: true });
  } finally {
    await unlock();
  }
  console.log(
    removed.length === 0 ? 'db:reset: no database in DATA_DIR yet' : `db:reset: removed ${removed.join(', ')}`,
  );
}

async function resetPostgres(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    for (const schema of STUDYHALL_SCHEMAS)
      await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
    await client.query('create schema public');
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    await client.end();
  }
  console.log(`db:reset: dropped schemas ${STUDYHALL_SCHEMAS.join(', ')}`);
}

async function main(): Promise<void> {
  const env = readEnv(process.env, DB_ENV);
  if (!env.ok) {
    for (const problem of env.problems) console.error(`db: config: ${problem}`);
    process.exit(2);
  }
  const command = process.argv[2];
  const { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOCALBASE_ENGINE: engine } = env.value;
  if (command === 'reset') {
    if (databaseUrl) {
      if (!process.argv.includes('--yes')) {
        console.error(
          'db:reset: this drops every studyhall schema at DATABASE_URL; run `npm run db:reset -- --yes` to confirm',
        );
        process.exit(2);
      }
      await resetPostgres(databaseUrl);
    } else {
      await resetEmbedded(dataDir);
    }
    await migrate(dataDir, databaseUrl, engine);
    return;
  }
  if (command === 'migrate') return migrate(dataDir, databaseUrl, engine);
  console.error('usage: db/cli.ts migrate|reset [--yes]');
  process.exit(2);
}

main().catch((error: unknown) => {
  if (error instanceof DataDirLockedError) console.error(`db: ${error.message}`);
  else console.error(`db: ${(error as Error).stack ?? error}`);
  process.exit(1);
});

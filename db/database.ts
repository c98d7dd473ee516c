// The one way studyhall opens its database: PGlite in DATA_DIR (locked to this process), or a real
// Postgres at DATABASE_URL; either way behind one `pg` Pool, with platform + migrations applied.
// PGlite runs in a worker thread (pglite-engine.ts), so that a long statement does not stop the
// server's thread and a statement timeout can be enforced.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.ts';
import { migrateDatabase, type MigrationResult } from './migrate.ts';
import { startCheckpoints } from './pglite-checkpoints.ts';
import { MEMORY, PgliteEngine, enginePoolConfig } from './pglite-engine.ts';
import { openPglite, SEARCH_PATH_SQL, type PgliteOptions } from './pglite.ts';
import { attachSnapshotReads, SnapshotReads, type SnapshotReadsSetting } from './snapshot-reads.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  kind: DatabaseKind;
  pool: pg.Pool;
  /** What the boot applied (empty when the schema was already up to date). */
  migrations: MigrationResult;
  /** Where the data lives: the PGlite directory or the DATABASE_URL without its password. */
  location: string;
  /** PGlite's worker-thread engine, when that is what the pool talks to. */
  engine?: PgliteEngine;
  /** With the engine: reads answered from a snapshot while one statement holds it (snapshot-reads.ts). */
  snapshotReads?: SnapshotReads;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A Postgres connection string; when set, DATA_DIR is not used for the database. */
  databaseUrl?: string | undefined;
  /** Directory for PGlite's files (`<dataDir>/pgdata`), or `memory://` for a throwaway database. */
  dataDir?: string;
  /** Apply platform + pending migrations (default true). */
  migrate?: boolean;
  /** Pool size for DATABASE_URL (PGlite is always 1: it has one session). */
  maxConnections?: number;
  pglite?: PgliteOptions;
  /**
   * Where PGlite runs: 'worker' (the default, every product entry point) or 'main', the calling
   * thread, where no statement timeout can stop a statement; kept for measuring the two side by
   * side (tools/bench). Default: STUDYHALL_PGLITE_THREAD, else 'worker'.
   */
  pgliteThread?: PgliteThread;
  /**
   * With PGlite in its worker: how read-only requests are answered while one statement holds the
   * engine (snapshot-reads.ts): from a snapshot kept open ('warm': the server's default, which
   * localbase passes), one opened when the stall begins ('on-demand', the default here: it costs
   * nothing until then, so a CLI or a test that serves no reads pays nothing), or not at all ('off').
   */
  snapshotReads?: SnapshotReadsSetting;
  log?: (line: string) => void;
}

export type PgliteThread = 'worker' | 'main';

export { MEMORY };

/** For the benches, which start the server as a process: STUDYHALL_PGLITE_THREAD=main runs PGlite on its thread. */
export function pgliteThreadFromEnv(env: NodeJS.ProcessEnv = process.env): PgliteThread {
  return env.STUDYHALL_PGLITE_THREAD === 'main' ? 'main' : 'worker';
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  if (!options.dataDir) throw new Error('openDatabase needs a dataDir or a databaseUrl');
  return openEmbedded(options.dataDir, options);
}

async function openPostgres(databaseUrl: string, options: OpenDatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  pool.on('error', (error) => options.log?.(`postgres pool: ${error.message}`));
  try {
    const migrations = await runMigrations(pool, options);
    return { kind: 'postgres', pool, migrations, location: redactUrl(databaseUrl), close: () => pool.end() };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

async function openEmbedded(dataDir: string, options: OpenDatabaseOptions): Promise<Database> {
  const inMemory = dataDir === MEMORY;
  const unlock = inMemory ? async () => {} : await lockDataDir(dataDir);
  const pgdata = inMemory ? MEMORY : path.join(dataDir, 'pgdata');
  try {
    if (!inMemory) await mkdir(pgdata, { recursive: true });
  } catch (error) {
    await unlock();
    throw error;
  }
  if ((options.pgliteThread ?? pgliteThreadFromEnv()) === 'main') return openInThread(pgdata, unlock, options);
  const engine = new PgliteEngine({
    pgdata,
    ...(options.pglite?.loadDataDir ? { loadDataDir: options.pglite.loadDataDir } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const mode = options.snapshotReads ?? 'on-demand';
  const snapshotReads =
    mode === 'off' ? undefined : new SnapshotReads(engine, { mode, ...(options.log ? { log: options.log } : {}) });
  try {
    await engine.start();
    await snapshotReads?.start();
    const pool = new pg.Pool(enginePoolConfig(engine));
    pool.on('error', (error) => options.log?.(`pglite pool: ${error.message}`));
    const migrations = await runMigrations(pool, options).catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
    if (snapshotReads) attachSnapshotReads(pool, snapshotReads);
    // 'warm': the first snapshot opens in the background; until it is open, reads wait as before.
    void snapshotReads?.keepWarm();
    const stopCheckpoints = startCheckpoints(pool, engine, options.log ? { log: options.log } : {});
    return {
      kind: 'pglite',
      pool,
      migrations,
      location: pgdata,
      engine,
      ...(snapshotReads ? { snapshotReads } : {}),
      close: async () => {
        stopCheckpoints();
        await snapshotReads?.close();
        await pool.end();
        await engine.close();
        await unlock();
      },
    };
  } catch (error) {
    await snapshotReads?.close().catch(() => {});
    await engine.close().catch(() => {});
    await unlock();
    throw error;
  }
}

/** PGlite on the calling thread, as before the worker: no statement timeout can stop a statement. */
async function openInThread(
  pgdata: string,
  unlock: () => Promise<void>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const inMemory = pgdata === MEMORY;
  let pglite: PGlite | undefined;
  try {
    pglite = await openPglite(pgdata, options.pglite);
    // PGlite has one session: the hosted search path is set on it once, here.
    await pglite.exec(SEARCH_PATH_SQL);
    const pool = new pg.Pool(createPgConfig(pglite));
    const migrations = await runMigrations(pool, options);
    const engine = pglite;
    return {
      kind: 'pglite',
      pool,
      migrations,
      location: inMemory ? MEMORY : pgdata,
      close: async () => {
        await pool.end();
        await engine.close();
        await unlock();
      },
    };
  } catch (error) {
    await pglite?.close().catch(() => {});
    await unlock();
    throw error;
  }
}

async function runMigrations(pool: pg.Pool, options: OpenDatabaseOptions): Promise<MigrationResult> {
  if (options.migrate === false) return { applied: [] };
  const client = await pool.connect();
  try {
    return await migrateDatabase(client, options.log);
  } finally {
    client.release();
  }
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

/** Closes the database once on SIGINT/SIGTERM, then exits; returns a function that unhooks it. */
export function closeOnSignals(close: () => Promise<void>, log: (line: string) => void = console.error): () => void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log(`studyhall: ${signal}, closing the database`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`studyhall: close failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

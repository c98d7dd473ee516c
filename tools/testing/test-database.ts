// The test database every suite shares: an in-memory PGlite with platform, migrations and pgTAP,
// what `supabase test db` finds before its first file runs. The tests.* helpers are not here: the
// suite's first file (supabase/tests/000-setup-tests-hooks.sql) installs them. The first build is
// snapshotted (dumpDataDir) under .tmp/, keyed by a hash of every SQL source, so later test
// processes start from it in about a second.
//
// It runs PGlite on the test's own thread, not in the product's worker (db/pglite-engine.ts):
// the suites here need no statement timeout, and the worker would cost each of the hundreds of
// pgTAP files a message round trip per protocol exchange, and each test process a second copy of
// the WebAssembly module while it starts (figures: tools/bench/README-statement-timeout.md).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { migrateDatabase } from '#db/migrate.ts';
import { repoRoot } from '#db/paths.ts';
import { openPglite } from '#db/pglite.ts';
import { readMigrationFiles, readPlatformFiles } from '#db/sql-files.ts';
import { ENABLE_PGTAP, installPgtap } from './pgtap-extension.ts';

export interface TestDatabase {
  pglite: PGlite;
  pool: pg.Pool;
  close(): Promise<void>;
}

const snapshotDir = path.join(repoRoot, '.tmp', 'pglite-snapshots');

async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...(await readPlatformFiles()), ...(await readMigrationFiles())]) {
    hash.update(file.name).update('\0').update(file.sql).update('\0');
  }
  hash.update(ENABLE_PGTAP);
  return hash.digest('hex').slice(0, 16);
}

async function readSnapshot(file: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(file)]);
  } catch {
    return undefined;
  }
}

/** The snapshot of the test database (built first if no test process has yet): a tarball for `loadDataDir`. */
export async function testDatabaseSnapshot(): Promise<Blob> {
  const snapshotFile = path.join(snapshotDir, `${await sourcesHash()}.tar.gz`);
  const existing = await readSnapshot(snapshotFile);
  if (existing) return existing;
  await (await openTestDatabase()).close();
  const built = await readSnapshot(snapshotFile);
  if (!built) throw new Error(`the test database snapshot ${snapshotFile} was not written`);
  return built;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const snapshotFile = path.join(snapshotDir, `${await sourcesHash()}.tar.gz`);
  const snapshot = await readSnapshot(snapshotFile);
  const pglite = await openPglite('memory://', snapshot ? { loadDataDir: snapshot } : {});
  await pglite.exec('set search_path = "$user", public, extensions');
  const pool = new pg.Pool(createPgConfig(pglite));
  if (!snapshot) {
    const client = await pool.connect();
    try {
      await migrateDatabase(client);
      await installPgtap(client);
    } finally {
      client.release();
    }
    const dump = await pglite.dumpDataDir('gzip');
    await mkdir(snapshotDir, { recursive: true });
    const partial = `${snapshotFile}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, snapshotFile);
  }
  return {
    pglite,
    pool,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
}

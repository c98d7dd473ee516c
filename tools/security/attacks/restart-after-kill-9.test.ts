// A restart right after `kill -9` opens the database at once. The killed server stays a zombie
// while its parent has not reaped it (for good under a container init that never reaps), and a
// zombie keeps its pid and start time: the DATA_DIR lock took it for a live owner and refused the
// restart as "in use by another studyhall process". A zombie holds no lock; a live server still does.
// On the default engine, the embedded PostgreSQL, the killed server also leaves its postmaster
// running: the restart stops it and serves with every acknowledged write.
import { readFile, rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockPathFor, type LockOwner } from '#db/data-dir-lock.ts';
import { openDatabase } from '#db/database.ts';
import { makeReachableTempDir } from '../../testing/reachable-temp-dir.ts';
import { spawnUnreaped, untilZombie, type UnreapedChild } from '../../testing/unreaped-child.ts';

let dataDir: string;
let server: UnreapedChild | undefined;

beforeEach(async () => {
  dataDir = await makeReachableTempDir('studyhall-kill9-');
});

afterEach(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('attack: a restart after kill -9 refused while the killed server is an unreaped zombie', () => {
  it('refuses while the server runs, then opens at once once it is killed and left unreaped, data intact', async () => {
    server = spawnUnreaped('db/fixtures/hold-open.ts', { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' });
    await server.ready;
    await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    const { pid } = JSON.parse(await readFile(lockPathFor(dataDir), 'utf8')) as LockOwner;
    process.kill(pid, 'SIGKILL');
    await untilZombie(pid);
    const started = Date.now();
    const database = await openDatabase({ dataDir });
    try {
      expect(database.engineName).toMatch(/^PostgreSQL 15\.\d+ \(embedded\)$/);
      expect(database.postgres?.stoppedOrphan).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
      const { rows } = await database.pool.query(`select id from storage.buckets where id = 'lock-test'`);
      expect(rows).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 300_000);
});

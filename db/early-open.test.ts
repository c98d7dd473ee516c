// The database the launcher opens before the server's code has loaded: localbase takes that one
// when it asks for the same DATA_DIR and engine (one PostgreSQL, one lock), closes it and opens its
// own when it asks for another, and gets its error when it failed. Real clusters, temp DATA_DIRs.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts';
import type { Database } from './database.ts';
import { clusterDir } from './embedded-postgres.ts';
import { openDatabaseEarly, openDatabaseOrTakeEarly } from './early-open.ts';

let temp: string;
const opened: Database[] = [];

beforeEach(async () => {
  temp = await makeReachableTempDir('studyhall-early-open-');
});

afterEach(async () => {
  for (const database of opened.splice(0)) await database.close().catch(() => {});
  await rm(temp, { recursive: true, force: true });
});

async function take(dataDir: string): Promise<Database> {
  const database = await openDatabaseOrTakeEarly({ dataDir });
  opened.push(database);
  return database;
}

async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

describe('the database opened early', () => {
  it('is the one localbase gets for the same DATA_DIR: one PostgreSQL, whose lock it holds', async () => {
    const dataDir = path.join(temp, 'data');
    openDatabaseEarly({ dataDir });
    const database = await take(dataDir);
    expect(database.kind).toBe('postgres');
    expect(await postmasterPid(dataDir)).toBe(database.postgres!.pid);
    // Taken once: asking again opens anew, which the lock it holds refuses.
    await expect(openDatabaseOrTakeEarly({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
  }, 120_000);

  it('is closed, its lock released, when localbase asks for another database, which it then gets', async () => {
    const early = path.join(temp, 'early');
    const asked = path.join(temp, 'asked');
    openDatabaseEarly({ dataDir: early });
    const database = await take(asked);
    expect(database.location).toBe(clusterDir(asked));
    expect(existsSync(path.join(clusterDir(early), 'postmaster.pid'))).toBe(false);
    const unlock = await lockDataDir(early);
    await unlock();
  }, 120_000);

  it('hands its error to localbase, and is no unhandled rejection before that', async () => {
    const dataDir = path.join(temp, 'data');
    const unlock = await lockDataDir(dataDir);
    try {
      openDatabaseEarly({ dataDir });
      // The open fails while nothing awaits it yet.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(openDatabaseOrTakeEarly({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await unlock();
    }
  });

  it('is nothing without the launcher: localbase opens its own', async () => {
    const dataDir = path.join(temp, 'data');
    const database = await take(dataDir);
    expect(database.kind).toBe('postgres');
  }, 120_000);
});

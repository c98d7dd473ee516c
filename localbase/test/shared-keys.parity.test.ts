// Servers on one DATABASE_URL share one set of keys: the first stores its own, every later one takes
// the stored set (and its keys.json is rewritten), so a session or API key from one server is
// valid on all of them. Two starting at once agree as well.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { installLocalbaseObjects } from '#localbase';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { keysFile, loadOrCreateKeys, shareProjectKeys } from '../src/keys.ts';

let database: Database;
let root: string;

beforeAll(async () => {
  database = await openParityDatabase();
  await installLocalbaseObjects(database.pool);
  root = await mkdtemp(path.join(os.tmpdir(), 'localbase-shared-keys-'));
}, 120_000);

afterAll(async () => {
  await database?.close();
  await rm(root, { recursive: true, force: true });
});

describe('shareProjectKeys', () => {
  it("gives every server the first server's keys and rewrites the others' keys.json", async () => {
    const [first, second] = [path.join(root, 'a'), path.join(root, 'b')];
    const firstKeys = await loadOrCreateKeys(first);
    const secondKeys = await loadOrCreateKeys(second);
    expect(secondKeys.jwtSecret).not.toBe(firstKeys.jwtSecret);

    expect(await shareProjectKeys(database.pool, first, firstKeys)).toEqual(firstKeys);
    const shared = await shareProjectKeys(database.pool, second, secondKeys);
    expect(shared).toEqual(firstKeys);
    expect(JSON.parse(await readFile(keysFile(second), 'utf8'))).toEqual(firstKeys);
    // A restart of the second server reads its rewritten file, and the database agrees.
    expect(await shareProjectKeys(database.pool, second, await loadOrCreateKeys(second))).toEqual(firstKeys);
  });

  it('is readable by no API role', async () => {
    const client = await database.pool.connect();
    try {
      for (const role of ['anon', 'authenticated', 'service_role']) {
        await client.query('begin');
        await client.query(`set local role ${role}`);
        await expect(client.query('select keys from _localbase.project_keys')).rejects.toThrow(/permission denied/);
        await client.query('rollback');
      }
    } finally {
      client.release();
    }
  });
});

// Keys per DATA_DIR: generated once with mode 0600, reused afterwards, signed with the project
// secret (never the public demo keys).
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyJwt } from '../src/jwt.ts';
import { keysFile, loadOrCreateKeys } from '../src/keys.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-keys-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('loadOrCreateKeys', () => {
  it('creates keys with mode 0600 and reuses them on the next load', async () => {
    const first = await loadOrCreateKeys(dataDir);
    expect((await stat(keysFile(dataDir))).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateKeys(dataDir)).toEqual(first);
    expect((await verifyJwt(first.anonKey, first.jwtSecret)).role).toBe('anon');
    expect((await verifyJwt(first.serviceRoleKey, first.jwtSecret)).role).toBe('service_role');
  });

  it('gives each data directory its own secret', async () => {
    const other = await mkdtemp(path.join(os.tmpdir(), 'localbase-keys-'));
    try {
      const [a, b] = [await loadOrCreateKeys(dataDir), await loadOrCreateKeys(other)];
      expect(a.jwtSecret).not.toBe(b.jwtSecret);
      await expect(verifyJwt(a.anonKey, b.jwtSecret)).rejects.toThrow();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refuses a damaged keys file instead of silently replacing the keys', async () => {
    await writeFile(keysFile(dataDir), '{"jwtSecret": 1}');
    await expect(loadOrCreateKeys(dataDir)).rejects.toThrow(/invalid/);
  });
});

// Keys per DATA_DIR: generated once with mode 0600, reused afterwards, signed with the project
// secret (never the public demo keys); the ES256 signing key likewise, and added once to a keys
// file from before it.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importSigningKey, signJwt, verifyJwt } from './jwt.ts';
import { keysFile, loadOrCreateKeys } from './keys.ts';

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

  it('keeps one ES256 signing key per data directory, whose tokens verify with its public key only', async () => {
    const keys = await loadOrCreateKeys(dataDir);
    expect(keys.signingKey.privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(keys.signingKey.publicJwk).not.toHaveProperty('d');
    expect((await loadOrCreateKeys(dataDir)).signingKey).toEqual(keys.signingKey);
    const signing = await importSigningKey(keys.signingKey);
    const token = await signJwt({ role: 'authenticated', sub: 'someone' }, signing);
    const verifying = { secret: keys.jwtSecret, publicKeys: new Map([[signing.kid, signing.publicKey]]) };
    expect((await verifyJwt(token, verifying)).role).toBe('authenticated');
    // With the secret alone (no public keys) an ES256 token is refused.
    await expect(verifyJwt(token, keys.jwtSecret)).rejects.toThrow();
  });

  it('adds a signing key to a keys file from before it, keeping the keys already handed out', async () => {
    const { signingKey: _dropped, ...older } = await loadOrCreateKeys(dataDir);
    await writeFile(keysFile(dataDir), JSON.stringify(older));
    const upgraded = await loadOrCreateKeys(dataDir);
    expect(upgraded).toMatchObject(older);
    expect(upgraded.signingKey.kid).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(await readFile(keysFile(dataDir), 'utf8'))).toEqual(upgraded);
    expect((await stat(keysFile(dataDir))).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged keys file instead of silently replacing the keys', async () => {
    await writeFile(keysFile(dataDir), '{"jwtSecret": 1}');
    await expect(loadOrCreateKeys(dataDir)).rejects.toThrow(/invalid/);
  });
});

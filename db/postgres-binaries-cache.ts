// A copy of the PostgreSQL binaries that the service user can reach. Started as root, the server
// runs PostgreSQL as the system user `postgres` (postgres-service-user.ts), which must pass through
// every folder above the binaries; a checkout under a closed folder (/root is 0700) hides
// node_modules from it. Then the package's `native/` tree (bin, lib, share: about 58 MB for
// linux-x64) is copied once into a cache outside the checkout that root owns and everyone may read,
// and PostgreSQL runs from there. Nothing of the user's is opened up (no chmod of the checkout).
//
// The copy is made in a folder beside its final place and renamed into it, so a start never runs
// half a copy; it is used while its marker names the same PostgreSQL version and it holds as many
// files and bytes as the package, and made again otherwise. A cache root that someone other than
// root owns, or that others may write to, is never used: whoever controls it would choose the
// program that runs with the database's rights.
import { randomBytes } from 'node:crypto';
import { cp, chmod, lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { postgresVersion, type BinariesResult, type PostgresBinaries } from './postgres-binaries.ts';
import { firstUnreachableFolder } from './postgres-service-user.ts';

/** Where copies go, the first usable one wins: the system's cache, else the temp folder (a read-only /var). */
export const CACHE_ROOTS: readonly string[] = ['/var/cache/studyhall', path.join(os.tmpdir(), 'studyhall-cache')];

/** Written last into a copy: what it was made from. */
export const MARKER_FILE = 'studyhall-copy.json';

const marker = z.object({ version: z.string(), files: z.number().int(), bytes: z.number().int() });
type TreeSize = { files: number; bytes: number };

/** The user that must reach the binaries, as firstUnreachableFolder takes it. */
export interface Reacher {
  uid: number;
  gid: number;
  groups: number[];
  name: string;
}

export interface CacheOptions {
  /** Default CACHE_ROOTS. */
  roots?: readonly string[];
  log?: (line: string) => void;
}

/**
 * The regular files and symlinks below `dir` and their bytes (links not followed), without the
 * marker at its top.
 */
async function treeSize(dir: string, top = true): Promise<TreeSize> {
  const entries = await readdir(dir, { withFileTypes: true });
  const parts = await Promise.all(
    entries.map(async (entry): Promise<TreeSize> => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return treeSize(full, false);
      if (top && entry.name === MARKER_FILE) return { files: 0, bytes: 0 };
      return { files: 1, bytes: (await lstat(full)).size };
    }),
  );
  return parts.reduce((sum, part) => ({ files: sum.files + part.files, bytes: sum.bytes + part.bytes }), {
    files: 0,
    bytes: 0,
  });
}

/** Directories 0755, executables 0755, other files 0644: readable by everyone, writable by root only. */
async function openToReaders(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await openToReaders(full);
    else if (entry.isFile()) await chmod(full, ((await lstat(full)).mode & 0o111) !== 0 ? 0o755 : 0o644);
  }
}

/**
 * Why this process may not keep binaries in `root` (undefined: it may): it must be a real folder
 * (not a link), owned by this process's user, that nobody else may write to.
 */
async function unsafeRoot(root: string): Promise<string | undefined> {
  try {
    await mkdir(root, { recursive: true, mode: 0o755 });
    const info = await lstat(root);
    if (!info.isDirectory()) return `${root} is not a folder`;
    if (info.uid !== process.getuid?.()) return `${root} belongs to another user (uid ${info.uid})`;
    if ((info.mode & 0o022) !== 0) return `others may write to ${root}`;
    // Others pass through it; it was made with the umask, which may have closed it.
    if ((info.mode & 0o055) !== 0o055) await chmod(root, 0o755);
    return undefined;
  } catch (error) {
    return `${root}: ${(error as Error).message}`;
  }
}

/** Whether `copy` is a whole copy of `expected` made from that version. */
async function isCurrent(copy: string, version: string, expected: TreeSize): Promise<boolean> {
  try {
    const recorded = marker.parse(JSON.parse(await readFile(path.join(copy, MARKER_FILE), 'utf8')));
    if (recorded.version !== version || recorded.files !== expected.files || recorded.bytes !== expected.bytes)
      return false;
    const actual = await treeSize(copy);
    return actual.files === expected.files && actual.bytes === expected.bytes;
  } catch {
    return false;
  }
}

/** Copies `source` into `target` through a folder beside it, renamed into place once whole. */
/** Tries at putting a copy in place while others replace what is there (a handful of servers at most). */
const RENAME_ATTEMPTS = 5;

async function copyInto(source: string, target: string, version: string, expected: TreeSize): Promise<void> {
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    // Library links stay links, relative as the package has them.
    await cp(source, partial, { recursive: true, verbatimSymlinks: true });
    await openToReaders(partial);
    const copied = await treeSize(partial);
    if (copied.files !== expected.files || copied.bytes !== expected.bytes) {
      throw new Error(
        `the copy holds ${copied.files} files (${copied.bytes} bytes), the package ${expected.files} (${expected.bytes})`,
      );
    }
    await writeFile(path.join(partial, MARKER_FILE), `${JSON.stringify({ version, ...expected })}\n`, { mode: 0o644 });
    // Into place by rename, which never replaces a folder that has files: a whole copy that another
    // server starting at the same moment put there (it may be running from it already) is kept and
    // this one dropped; only an outdated or damaged copy is moved aside for it. Checking first and
    // moving aside after let two servers each move the other's fresh copy away.
    for (let attempt = 1; ; attempt++) {
      try {
        await rename(partial, target);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt === RENAME_ATTEMPTS) throw error;
      }
      if (await isCurrent(target, version, expected)) {
        await rm(partial, { recursive: true, force: true });
        return;
      }
      const outdated = `${target}.outdated-${process.pid}-${randomBytes(4).toString('hex')}`;
      await rename(target, outdated).then(
        () => rm(outdated, { recursive: true, force: true }),
        () => {},
      );
    }
  } catch (error) {
    await rm(partial, { recursive: true, force: true }).catch(() => {});
    // Another server starting at the same moment may have put a whole copy in place first.
    if (!(await isCurrent(target, version, expected))) throw error;
  }
}

/** The binaries of a copy whose top folder is `copy`. */
function binariesIn(copy: string, version: string): PostgresBinaries {
  const binDir = path.join(copy, 'bin');
  return { binDir, initdb: path.join(binDir, 'initdb'), postgres: path.join(binDir, 'postgres'), version };
}

/**
 * The binaries as `user` can run them: in place when it reaches them, else from a copy in the
 * first usable cache root (made when missing, outdated or damaged). A reason when neither works.
 */
export async function binariesReachableBy(
  binaries: PostgresBinaries,
  user: Reacher,
  options: CacheOptions = {},
): Promise<BinariesResult> {
  const blocked = await firstUnreachableFolder(binaries.binDir, user);
  if (!blocked) return { ok: true, binaries };
  const log = options.log ?? (() => {});
  // bin/, lib/ and share/ together: postgres loads ../lib (its RUNPATH), initdb reads ../share.
  const source = await realpath(path.dirname(binaries.binDir));
  const expected = await treeSize(source);
  const problems: string[] = [];
  for (const root of options.roots ?? CACHE_ROOTS) {
    const unsafe = await unsafeRoot(root);
    if (unsafe) {
      problems.push(unsafe);
      continue;
    }
    const copy = path.join(root, `postgres-${binaries.version}`);
    try {
      if (!(await isCurrent(copy, binaries.version, expected))) {
        await copyInto(source, copy, binaries.version, expected);
        log(
          `copied the PostgreSQL binaries to ${copy} (${Math.round(expected.bytes / 1e6)} MB, once): the system user "${user.name}" cannot reach ${source} (${blocked} is closed to it)`,
        );
      }
      const cached = binariesIn(copy, binaries.version);
      const ran = await postgresVersion(cached.postgres, { uid: user.uid, gid: user.gid });
      if (!ran.ok) {
        problems.push(ran.reason);
        continue;
      }
      return { ok: true, binaries: cached };
    } catch (error) {
      problems.push(`${copy}: ${(error as Error).message}`);
    }
  }
  return {
    ok: false,
    reason: `the system user "${user.name}" that runs PostgreSQL for root cannot reach the binaries (${blocked} is closed to it), and no copy could be made (${problems.join('; ')})`,
  };
}

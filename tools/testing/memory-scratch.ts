// The test runs' scratch folders (os.tmpdir(): PostgreSQL clusters and the databases copied in them,
// PGlite data directories, copies of the binaries, the browser suites' servers and profiles) in memory,
// on the machine's tmpfs at /dev/shm, when it has room for them.
//
// Why: a run creates and deletes a few hundred thousand files. On ext4 without a journal (this
// project's machines' root file system) every new inode is first checked against the recently deleted
// ones, one inode-table lookup each, so creating a file grows slower the more the run has deleted:
// `perf record -a` over `npm test` put about 80 of its 460 CPU-seconds in that check (the kernel's
// recently_deleted/find_inode_bit), and with the scratch in memory the run went from 265 s to 215 s.
// Nothing a test asserts depends on where os.tmpdir() is; a machine without a big enough tmpfs keeps
// its usual one.
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';

const MEMORY_FOLDER = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
/** Room a run needs at its busiest (several clusters and their binaries side by side), with margin. */
const ROOM_NEEDED_BYTES = 4 * 1024 ** 3;
const PREFIX = 'studyhall-tests-';

/**
 * Points TMPDIR (os.tmpdir(), for this process and every process it starts) at a new folder on the
 * tmpfs, removed when this process exits, and returns it; or returns undefined and changes nothing
 * when there is no tmpfs with room at /dev/shm. A process whose TMPDIR is already such a folder (a
 * test runner's worker, which loads the same config) keeps it.
 */
export function useMemoryScratch(): string | undefined {
  const inherited = process.env.TMPDIR;
  if (inherited?.startsWith(path.join(MEMORY_FOLDER, PREFIX))) return inherited;
  if (!hasRoom()) return undefined;
  const folder = mkdtempSync(path.join(MEMORY_FOLDER, PREFIX));
  // As os.tmpdir() is for them: the service user that runs PostgreSQL for root passes through it.
  chmodSync(folder, 0o755);
  process.env.TMPDIR = folder;
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

function hasRoom(): boolean {
  try {
    const stats = statfsSync(MEMORY_FOLDER);
    return stats.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= ROOM_NEEDED_BYTES;
  } catch {
    return false;
  }
}

// One process per DATA_DIR: PGlite has a single session and a second writer would corrupt it.
//
// The lock is a file naming its owner: pid, the boot it started in and the process's start time.
// A lock whose owner no longer exists (killed with SIGKILL, power loss), or lingers only as a
// zombie its parent has not reaped, is taken over at once; a recycled pid is not mistaken for the
// owner because its start time (or the boot) differs.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked';
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly ownerPid?: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another studyhall process${ownerPid ? ` (pid ${ownerPid})` : ''} (lock ${lockPath}). ` +
        'Stop that process, or point DATA_DIR somewhere else.',
    );
  }
}

export function lockPathFor(dataDir: string): string {
  return path.join(dataDir, 'studyhall.lock');
}

const lockOwner = z.object({
  pid: z.number().int().positive(),
  /** Linux's boot id, else the boot time in whole seconds: a lock from an earlier boot is stale. */
  boot: z.string(),
  /** When the process started, in the kernel's clock ticks since boot (Linux); null where unknown. */
  started: z.string().nullable(),
  /** Random per lock, so that a release never removes a lock that another process took over. */
  token: z.string(),
  hostname: z.string(),
});
export type LockOwner = z.infer<typeof lockOwner>;

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function bootIdentity(): string {
  const bootId = readText('/proc/sys/kernel/random/boot_id')?.trim();
  if (bootId) return bootId;
  // Elsewhere: the boot time, rounded so that clock jitter between two readings does not matter.
  return `boot-${Math.round((Date.now() / 1000 - os.uptime()) / 10) * 10}`;
}

/** The fields of /proc/<pid>/stat after the command name (field 2, which may hold spaces and ')'). */
function statFields(pid: number): string[] | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Field 22 of /proc/<pid>/stat (start time). */
export function processStartTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/**
 * Whether the process has exited and only its entry remains (a zombie: its parent has not reaped
 * it yet). It holds no lock: it will never run again, yet it keeps its pid and start time, and a
 * signal 0 still reaches it. Right after a SIGKILL that is the normal state for a while, and for
 * good under a container init that never reaps. Linux: state Z (or X) in /proc/<pid>/stat;
 * elsewhere `ps` says Z. Unknown (no /proc, no ps): not a zombie, so a live owner is never passed over.
 */
export function processIsZombie(pid: number): boolean {
  const state = statFields(pid)?.[0] ?? psState(pid);
  return state !== undefined && (state.startsWith('Z') || state.startsWith('X'));
}

function psState(pid: number): string | undefined {
  if (process.platform === 'linux' || process.platform === 'win32') return undefined;
  try {
    return (
      execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 2_000,
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists (EPERM: it does, but belongs to another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process that wrote this lock is still running (same boot, same pid, same start). */
export function ownerIsAlive(owner: LockOwner): boolean {
  if (owner.boot !== bootIdentity()) return false;
  if (!processExists(owner.pid) || processIsZombie(owner.pid)) return false;
  if (owner.started === null) return true;
  const started = processStartTime(owner.pid);
  // No /proc to ask: the pid exists, so it must be taken for the owner.
  return started === null || started === owner.started;
}

function ourIdentity(): LockOwner {
  return {
    pid: process.pid,
    boot: bootIdentity(),
    started: processStartTime(process.pid),
    token: randomUUID(),
    hostname: os.hostname(),
  };
}

type Existing =
  | { kind: 'owner'; owner: LockOwner; text: string }
  | { kind: 'unreadable'; text: string }
  | { kind: 'legacy-directory'; ageMs: number }
  | { kind: 'none' };

/**
 * Earlier versions locked with a directory refreshed every 2 s and judged stale after 10 s; such a
 * lock left by a crash is taken over once it is that old.
 */
const LEGACY_STALE_MS = 10_000;
/** A lock file just created but not yet written (its owner is between open and write). */
const UNWRITTEN_GRACE_MS = 2_000;

async function readExisting(file: string): Promise<Existing> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw error;
  }
  if (info.isDirectory()) return { kind: 'legacy-directory', ageMs: Date.now() - info.mtimeMs };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw error;
  }
  try {
    return { kind: 'owner', owner: lockOwner.parse(JSON.parse(text)), text };
  } catch {
    // Empty or torn: a lock that never got its owner written. Young: its writer may be alive.
    return Date.now() - info.mtimeMs < UNWRITTEN_GRACE_MS
      ? { kind: 'unreadable', text }
      : { kind: 'owner', owner: deadOwner, text };
  }
}

const deadOwner: LockOwner = { pid: 1, boot: 'unknown', started: null, token: 'unreadable', hostname: '' };

/** Creates the file only if nothing is there; false when something is. */
async function createExclusive(file: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * Replaces a stale lock. Takeovers are serialised by a second exclusive file, so two processes
 * starting at once after a crash cannot both replace the same stale lock: the one holding the
 * takeover file checks that the lock is still the stale one it judged before replacing it.
 */
async function takeOver(
  lockPath: string,
  staleText: string | undefined,
  content: string,
): Promise<'taken' | 'changed'> {
  const mutexPath = `${lockPath}.takeover`;
  const mutex = JSON.stringify(ourIdentity());
  if (!(await createExclusive(mutexPath, mutex))) {
    const other = await readExisting(mutexPath);
    if (other.kind === 'owner' && !ownerIsAlive(other.owner)) await rm(mutexPath, { force: true });
    return 'changed';
  }
  try {
    const now = await readExisting(lockPath);
    const sameStale =
      (staleText === undefined && now.kind === 'legacy-directory') ||
      ((now.kind === 'owner' || now.kind === 'unreadable') && now.text === staleText);
    if (!sameStale) return 'changed';
    const temp = `${lockPath}.${process.pid}.${randomUUID()}`;
    await createExclusive(temp, content);
    if (now.kind === 'legacy-directory') await rm(lockPath, { recursive: true, force: true });
    await rename(temp, lockPath);
    return 'taken';
  } finally {
    await rm(mutexPath, { force: true });
  }
}

const ATTEMPTS = 20;

/**
 * Takes the lock or throws DataDirLockedError (when a live process holds it). Returns the release
 * function, which removes the lock only while it is still ours.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = lockPathFor(dataDir);
  const identity = ourIdentity();
  const content = `${JSON.stringify(identity)}\n`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await createExclusive(lockPath, content)) return releaser(lockPath, identity);
    const existing = await readExisting(lockPath);
    if (existing.kind === 'none') continue;
    if (existing.kind === 'unreadable') {
      await delay(100);
      continue;
    }
    if (existing.kind === 'legacy-directory') {
      if (existing.ageMs < LEGACY_STALE_MS) throw new DataDirLockedError(dataDir, lockPath);
      if ((await takeOver(lockPath, undefined, content)) === 'taken') return releaser(lockPath, identity);
      continue;
    }
    if (ownerIsAlive(existing.owner)) throw new DataDirLockedError(dataDir, lockPath, existing.owner.pid);
    if ((await takeOver(lockPath, existing.text, content)) === 'taken') return releaser(lockPath, identity);
    await delay(20 + Math.random() * 50);
  }
  throw new DataDirLockedError(dataDir, lockPath);
}

function releaser(lockPath: string, identity: LockOwner): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    const existing = await readExisting(lockPath);
    if (existing.kind === 'owner' && existing.owner.token === identity.token) await unlink(lockPath).catch(() => {});
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

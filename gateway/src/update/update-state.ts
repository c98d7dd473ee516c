// The update's files in LOG_DIR: update.lock (one update at a time, across restarts), update.json
// (what the last update did, including the stash it made) and update.log (its output).
import { open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const updateStateSchema = z.object({
  // interrupted: the updater was stopped (SIGTERM/SIGINT) between two whole steps; run it again.
  state: z.enum(['running', 'succeeded', 'failed', 'interrupted']),
  step: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  from_sha: z.string().nullable(),
  to_sha: z.string().nullable(),
  stash: z.string().nullable(),
  error: z.string().nullable(),
});

export type UpdateState = z.infer<typeof updateStateSchema>;

export interface UpdateFiles {
  lock: string;
  state: string;
  log: string;
}

export function updateFiles(logDir: string): UpdateFiles {
  return {
    lock: path.join(logDir, 'update.lock'),
    state: path.join(logDir, 'update.json'),
    log: path.join(logDir, 'update.log'),
  };
}

/** Whether a process with this id exists (one we may not signal still exists). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when an update holds the lock and its process still runs; a dead holder's lock is removed. */
export async function updateInProgress(files: UpdateFiles): Promise<boolean> {
  let content: string;
  try {
    content = await readFile(files.lock, 'utf8');
  } catch {
    return false;
  }
  const pid = Number.parseInt(content, 10);
  if (Number.isInteger(pid) && pid > 0 && processIsAlive(pid)) return true;
  await rm(files.lock, { force: true });
  return false;
}

/** Takes the lock atomically (O_EXCL); false when another update holds it. */
export async function acquireUpdateLock(files: UpdateFiles, pid: number): Promise<boolean> {
  if (await updateInProgress(files)) return false;
  try {
    const handle = await open(files.lock, 'wx', 0o600);
    await handle.writeFile(String(pid));
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export async function releaseUpdateLock(files: UpdateFiles): Promise<void> {
  await rm(files.lock, { force: true });
}

export async function writeUpdateState(files: UpdateFiles, state: UpdateState): Promise<void> {
  await writeFile(files.state, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export async function readUpdateState(files: UpdateFiles): Promise<UpdateState | null> {
  try {
    return updateStateSchema.parse(JSON.parse(await readFile(files.state, 'utf8')));
  } catch {
    return null;
  }
}

// One process per DATA_DIR: PGlite has a single session and a second writer would corrupt it.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';

export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked';
  constructor(readonly dataDir: string, readonly lockPath: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another studyhall process (lock ${lockPath}). ` +
        'Stop that process, or point DATA_DIR somewhere else.',
    );
  }
}

export function lockPathFor(dataDir: string): string {
  return path.join(dataDir, 'studyhall.lock');
}

/**
 * Takes the lock or throws DataDirLockedError. The lock is refreshed while the process lives and
 * is considered stale 10 s after a crash, so a killed server does not lock the data out forever.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = lockPathFor(dataDir);
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: lockPath,
      stale: 10_000,
      update: 2_000,
      realpath: false,
      onCompromised: (error) => {
        // Someone removed or took over our lock: keep serving, but say so loudly once.
        console.error(`studyhall: the lock on ${dataDir} was compromised: ${error.message}`);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dataDir, lockPath);
    throw error;
  }
}

// Which embedded engine a DATA_DIR runs on. PostgreSQL 15 (embedded-postgres.ts) unless
// LOCALBASE_ENGINE=pglite, or its binaries are missing, or DATA_DIR holds a PGlite database and no
// PostgreSQL cluster yet: an update must never start a school on an empty database, so such a
// DATA_DIR keeps PGlite until the admin runs `npm run db:move-to-postgres`. Once a cluster exists
// it is preferred; the PGlite files stay until the admin removes them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EngineSetting } from '#config/env.ts';
import { clusterExists } from './embedded-postgres.ts';

export type EngineChoice =
  | { engine: 'postgres' }
  /** `notice`: why PGlite although PostgreSQL is the default (one line for the terminal and the status). */
  | { engine: 'pglite'; notice?: string; legacyData?: boolean };

/** PGlite's folder in DATA_DIR. */
export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/** Whether DATA_DIR holds a PGlite database. */
export function pgliteDataExists(dataDir: string): boolean {
  return existsSync(path.join(pgliteDir(dataDir), 'PG_VERSION'));
}

export const MOVE_HINT = 'run `npm run db:move-to-postgres` to move it to PostgreSQL 15';

/** The engine before the binaries are looked at (see database.ts for their fallback). */
export function chooseEngine(dataDir: string, setting: EngineSetting | undefined): EngineChoice {
  if (setting === 'pglite') return { engine: 'pglite' };
  if (!clusterExists(dataDir) && pgliteDataExists(dataDir)) {
    return {
      engine: 'pglite',
      legacyData: true,
      notice: `DATA_DIR holds a PGlite database (${pgliteDir(dataDir)}), kept on PGlite; ${MOVE_HINT}`,
    };
  }
  return { engine: 'postgres' };
}

// The embedded engine: PGlite (Postgres in WASM) with the extensions our SQL and tests use.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { pgtap } from '@electric-sql/pglite-pgtap';

export interface PgliteOptions {
  /** A tarball from `dumpDataDir()` to start from instead of an empty cluster. */
  loadDataDir?: Blob | File;
}

/** Opens PGlite in `dataDir` (a directory, or `memory://`). pgtap is available, never installed. */
export function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<PGlite> {
  return PGlite.create(dataDir, {
    extensions: { pgcrypto, pg_trgm, pgtap },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
}

// The embedded engine: PGlite (Postgres in WASM) with the extensions our SQL and tests use.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { pgtap } from '@electric-sql/pglite-pgtap';

export interface PgliteOptions {
  /** A tarball from `dumpDataDir()` to start from instead of an empty cluster. */
  loadDataDir?: Blob | File;
  /** Postgres settings over PGLITE_SETTINGS. */
  settings?: Readonly<Record<string, string>>;
}

/**
 * Postgres settings given at every start (`-c name=value` after PGlite's own start parameters;
 * nothing is written to the data directory, so a DATA_DIR carries no tuning of ours).
 *
 * shared_buffers: the buffer pool lives in PGlite's WebAssembly memory, and initdb's 128 MB of it
 * becomes resident as pages are touched: about 120 MB of the process. 32 MB holds what studyhall
 * reads (its whole database is about 40 MB on disk, mostly catalogs), and a page that misses the
 * pool is one read from the operating system's cache. Measured side by side: the same catalog and
 * table queries at 128 MB and 32 MB have the same median latency (tools/bench/README-boot.md).
 * wal_buffers follows shared_buffers (1/32 of it).
 */
/** The hosted search path, set on PGlite's one session when it opens (a real Postgres has it per role). */
export const SEARCH_PATH_SQL = 'set search_path = "$user", public, extensions';

export const PGLITE_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '32MB' };

/** Opens PGlite in `dataDir` (a directory, or `memory://`). pgtap is available, never installed. */
export function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<PGlite> {
  return PGlite.create(dataDir, {
    extensions: { pgcrypto, pg_trgm, pgtap },
    startParams: [
      ...PGlite.defaultStartParams,
      ...Object.entries({ ...PGLITE_SETTINGS, ...options.settings }).flatMap(([name, value]) => [
        '-c',
        `${name}=${value}`,
      ]),
    ],
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
}

// Opening the database before the server's code has loaded. A warm `npm start` spends about half a
// second compiling the bundled server on the main thread, while the database's own start (the
// DATA_DIR lock, the binaries' check, PostgreSQL's start, or PGlite's in its worker thread) is
// mostly waiting on other processes, threads and the disk. So the launcher opens it first
// (localbase/open-database-early.ts) and localbase, once loaded, takes that database when it asks
// for the same one instead of opening another. Without the launcher (tests, tsx) nothing is
// pending and localbase opens its database as before.
//
// The one pending open is this module's state. A process that exits before anything takes it
// leaves no PostgreSQL behind: embedded-postgres.ts stops the postmasters it started at exit.
import { openDatabase, type Database, type OpenDatabaseOptions } from './database.ts';

let pending: { key: string; opening: Promise<Database> } | undefined;

/** What makes two opens the same database: the options localbase varies. */
function keyOf(options: OpenDatabaseOptions): string {
  return JSON.stringify([options.dataDir ?? null, options.databaseUrl ?? null, options.engine ?? null]);
}

/** Starts opening the database; openDatabaseOrTakeEarly with the same options takes it. */
export function openDatabaseEarly(options: OpenDatabaseOptions): void {
  const opening = openDatabase(options);
  // Its error belongs to whoever takes it; until then it is not an unhandled rejection.
  opening.catch(() => {});
  pending = { key: keyOf(options), opening };
}

/**
 * The database the launcher started opening, when it was opened with these options; otherwise
 * (nothing pending, or other options) a database opened now, after closing the pending one, which
 * holds DATA_DIR's lock. Taken once: a second call opens its own.
 */
export async function openDatabaseOrTakeEarly(options: OpenDatabaseOptions): Promise<Database> {
  const early = pending;
  pending = undefined;
  if (early?.key === keyOf(options)) return early.opening;
  if (early) await early.opening.then((database) => database.close()).catch(() => {});
  return openDatabase(options);
}

// The embedded PostgreSQL 15 binaries (db/postgres-binaries.ts) with pgTAP beside them, for the test
// clusters: `supabase test db` runs `create extension pgtap`, which needs pgTAP's control and SQL
// files in the server's share/extension folder. pgTAP comes from npm too (@electric-sql/pglite-pgtap
// ships pgTAP 1.3.5's files, built for PGlite but plain SQL that PostgreSQL 15 runs as it is).
//
// node_modules is never written: the binaries are copied into a temp folder laid out as the
// package's own (bin/, lib/, share/), with lib/ a link to the package's. PostgreSQL finds its
// share/ folder from where its executable is, after resolving links, so the executables are
// copied, not linked; they load their libraries through `$ORIGIN/../lib`.
import { execFile } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { findPostgresBinaries, type PostgresBinaries } from '#db/postgres-binaries.ts';

const run = promisify(execFile);

/** The tarball of pgTAP's extension files that @electric-sql/pglite-pgtap ships. */
export function pgtapTarball(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite-pgtap');
  return path.join(path.dirname(entry), 'pgtap.tar.gz');
}

/**
 * Lays out the embedded binaries with pgTAP in `root` (a folder the service user can read) and
 * returns them, checked as the product checks its own. Throws with the reason when they cannot run.
 */
export async function postgresWithPgtap(root: string): Promise<PostgresBinaries> {
  const found = await findPostgresBinaries();
  if (!found.ok) throw new Error(`no PostgreSQL for the tests: ${found.reason}`);
  const packageRoot = path.dirname(found.binaries.binDir);
  await mkdir(root, { recursive: true });
  // All three folders are copied, lib too (40 MB, a fraction of a second): as root the server runs as
  // the service user, who may not be able to reach node_modules at all (a checkout in a 0700 folder
  // such as /root or a mktemp -d), and a link into it would leave postgres without its libraries.
  // The libraries' own links are relative and stay so.
  for (const folder of ['bin', 'lib', 'share']) {
    await cp(path.join(packageRoot, folder), path.join(root, folder), { recursive: true, verbatimSymlinks: true });
  }
  // Only pgTAP's extension files, into share/postgresql/extension beside the others.
  await run('tar', ['-xzf', pgtapTarball(), '-C', root, '--wildcards', 'share/postgresql/extension/pgtap*']);
  const copied = await findPostgresBinaries(path.join(root, 'bin'));
  if (!copied.ok) throw new Error(`the copy of PostgreSQL in ${root} does not run: ${copied.reason}`);
  return copied.binaries;
}

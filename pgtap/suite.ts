// The pgTAP suite as `supabase test db` sees it. The CLI runs
//   pg_prove --ext .pg --ext .sql -r supabase/tests
// which finds every file ending in .pg or .sql below the folder (following symlinked folders) and
// runs them in the order Perl's `sort` gives their paths: plain byte order. Every runner here
// (PGlite, pg_prove in test:pg, the mutation runner) takes its files from this one list.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { supabaseTestsDir } from '#db/paths.ts';

/** Installs the tests.* helpers and commits them; must be the first file of the run. */
export const SETUP_FILE = '000-setup-tests-hooks.sql';
/** Drops the helpers again; must be the last file of the run. */
export const TEARDOWN_FILE = 'zzz-teardown-tests-hooks.sql';

const EXTENSIONS = ['.pg', '.sql'];

export interface SuiteFile {
  /** Path below supabase/tests with `/` separators, e.g. `database/12-community-owner-cells.test.sql`. */
  name: string;
  path: string;
  sql: string;
}

export interface Suite {
  /** Every file, in the order pg_prove runs them. */
  all: SuiteFile[];
  setup: SuiteFile;
  /** Every file between the setup and the teardown: the tests proper. */
  tests: SuiteFile[];
  teardown: SuiteFile;
}

function walk(dir: string, prefix: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    const name = prefix ? `${prefix}/${entry}` : entry;
    const stats = statSync(full);
    if (stats.isDirectory()) return walk(full, name);
    return stats.isFile() && EXTENSIONS.some((extension) => entry.endsWith(extension)) ? [name] : [];
  });
}

/** Byte-order comparison, as Perl's default `sort` (and unlike localeCompare). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The suite's file names in pg_prove's order. */
export function listSuiteFiles(dir: string = supabaseTestsDir): string[] {
  return walk(dir, '').sort(byteOrder);
}

export function readSuite(dir: string = supabaseTestsDir): Suite {
  const all = listSuiteFiles(dir).map((name) => {
    const file = path.join(dir, ...name.split('/'));
    return { name, path: file, sql: readFileSync(file, 'utf8') };
  });
  const setup = all[0];
  const teardown = all.at(-1);
  if (setup?.name !== SETUP_FILE) {
    throw new Error(
      `${SETUP_FILE} must be the first file of ${dir} in pg_prove's order, found ${setup?.name ?? 'none'}`,
    );
  }
  if (teardown?.name !== TEARDOWN_FILE || all.length < 2) {
    throw new Error(
      `${TEARDOWN_FILE} must be the last file of ${dir} in pg_prove's order, found ${teardown?.name ?? 'none'}`,
    );
  }
  return { all, setup, tests: all.slice(1, -1), teardown };
}

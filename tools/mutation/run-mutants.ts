// Runs mutants against the pgTAP suite on one throwaway PostgreSQL 15 cluster. The schema is built
// once; each mutant gets a fresh copy of that database (CREATE DATABASE ... TEMPLATE), has its one
// statement applied, and runs the suite file by file until the first file fails (killed) or every
// file passes (survived). Copies are dropped as soon as their mutant is judged.
import pg from 'pg';
import { runPgtapFile } from '#pgtap/run-file.ts';
import type { Mutant } from './mutants.ts';
import { KillerOrder, type SuiteFile } from './order.ts';

export interface MutantResult {
  mutant: Mutant;
  killed: boolean;
  /** The file that failed, and its first problem, for a killed mutant. */
  killedBy?: { file: string; problem: string };
  filesRun: number;
  milliseconds: number;
}

export interface MutantRunOptions {
  /** postgres://.../<template database>, with pgTAP and the tests.* helpers installed. */
  templateUrl: string;
  files: SuiteFile[];
  jobs: number;
  /** A statement that runs longer than this fails its file (a mutant that makes a query loop). */
  statementTimeoutMs?: number;
  onResult?: (result: MutantResult, done: number, total: number) => void;
}

function databaseUrl(templateUrl: string, database: string): string {
  const url = new URL(templateUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function templateName(templateUrl: string): string {
  return decodeURIComponent(new URL(templateUrl).pathname.slice(1));
}

/** Runs files in order on one connection; returns the first failing file, if any. */
async function runSuite(
  url: string,
  setupSql: string | null,
  files: SuiteFile[],
  statementTimeoutMs: number,
): Promise<{ failed?: { file: string; problem: string }; filesRun: number }> {
  const client = new pg.Client({ connectionString: url, options: `-c statement_timeout=${statementTimeoutMs}` });
  await client.connect();
  try {
    if (setupSql) await client.query(setupSql);
    let filesRun = 0;
    for (const file of files) {
      filesRun += 1;
      const run = await runPgtapFile(client, file.sql, file.name);
      if (!run.passed) return { failed: { file: file.name, problem: run.problems[0] ?? 'failed' }, filesRun };
    }
    return { filesRun };
  } finally {
    await client.end();
  }
}

/**
 * The template's own settings (`alter database ... set search_path`, which the platform stand-in
 * makes): a copy does not inherit them, and pgTAP lives in the `extensions` schema on that path.
 */
async function databaseSettings(admin: pg.Client, templateUrl: string): Promise<string[]> {
  const { rows } = await admin.query<{ setting: string }>(
    `select unnest(s.setconfig) as setting from pg_db_role_setting s
     join pg_database d on d.oid = s.setdatabase where d.datname = $1 and s.setrole = 0`,
    [templateName(templateUrl)],
  );
  return rows.map((row) => row.setting);
}

/** Creates a copy of the template, hands its URL to the work, and drops it again. */
async function withCopy<T>(
  admin: pg.Client,
  templateUrl: string,
  name: string,
  work: (url: string) => Promise<T>,
): Promise<T> {
  // FILE_COPY copies the directory at once; the default WAL_LOG strategy writes every block
  // through the WAL, about twice as slow for a database this size.
  await admin.query(`create database "${name}" template "${templateName(templateUrl)}" strategy file_copy`);
  try {
    for (const setting of await databaseSettings(admin, templateUrl)) {
      const separator = setting.indexOf('=');
      const key = setting.slice(0, separator);
      await admin.query(`alter database "${name}" set ${key} to ${settingValueSql(key, setting.slice(separator + 1))}`);
    }
    return await work(databaseUrl(templateUrl, name));
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`);
  }
}

// List-valued settings are stored in the form SET accepts unquoted ("$user", public, extensions);
// quoting one would make the whole list a single element. Every other value is a literal.
const LIST_SETTINGS = new Set([
  'search_path',
  'temp_tablespaces',
  'session_preload_libraries',
  'local_preload_libraries',
]);

function settingValueSql(name: string, value: string): string {
  return LIST_SETTINGS.has(name) ? value : `'${value.replaceAll("'", "''")}'`;
}

function adminClient(templateUrl: string): pg.Client {
  return new pg.Client({ connectionString: databaseUrl(templateUrl, 'postgres') });
}

/** The unmutated suite must pass, or every mutant would look killed. Returns the first failure. */
export async function checkBaseline(
  templateUrl: string,
  files: SuiteFile[],
  statementTimeoutMs = 30_000,
): Promise<{ file: string; problem: string } | undefined> {
  const admin = adminClient(templateUrl);
  await admin.connect();
  try {
    const run = await withCopy(admin, templateUrl, 'mutation_baseline', (url) =>
      runSuite(url, null, files, statementTimeoutMs),
    );
    return run.failed;
  } finally {
    await admin.end();
  }
}

export async function runMutants(mutants: Mutant[], options: MutantRunOptions): Promise<MutantResult[]> {
  const order = new KillerOrder(options.files);
  const admin = adminClient(options.templateUrl);
  await admin.connect();
  const results: MutantResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < mutants.length) {
      const index = next++;
      const mutant = mutants[index] as Mutant;
      const started = performance.now();
      const run = await withCopy(admin, options.templateUrl, `mutant_${index}`, (url) =>
        runSuite(url, mutant.sql, order.order(mutant.target), options.statementTimeoutMs ?? 30_000),
      );
      if (run.failed) order.recordKill(mutant.target, run.failed.file);
      const result: MutantResult = {
        mutant,
        killed: run.failed !== undefined,
        ...(run.failed ? { killedBy: run.failed } : {}),
        filesRun: run.filesRun,
        milliseconds: performance.now() - started,
      };
      results.push(result);
      options.onResult?.(result, results.length, mutants.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, mutants.length)) }, worker));
  } finally {
    await admin.end();
  }
  return mutants.map((mutant) => results.find((result) => result.mutant === mutant) as MutantResult);
}

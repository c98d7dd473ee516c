// `supabase test db` without Docker: the same steps the Supabase CLI takes, on any database URL.
// The CLI (internal/db/test/test.go in supabase/cli):
//   1. connects and runs `create extension if not exists pgtap with schema extensions`, noting
//      whether pgTAP was already there;
//   2. runs, in its pg_prove image, `pg_prove --ext .pg --ext .sql -r <abs path of supabase/tests>`
//      with PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE set and the tests folder as working
//      directory. pg_prove gives every file its own psql process (its own connection, with
//      ON_ERROR_STOP=1), one file after another, in the byte order of their paths; it wraps
//      nothing in a transaction: each file's own begin ... rollback is what isolates it;
//   3. drops pgTAP again (`drop extension if exists pgtap`) if step 1 created it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { supabaseTestsDir } from '#db/paths.ts';
import { ENABLE_PGTAP } from '../testing/pgtap-extension.ts';

export const DISABLE_PGTAP = 'drop extension if exists pgtap';

export interface SupabaseTestDbOptions {
  /** Files or folders to prove; the CLI's default is the whole supabase/tests folder. */
  paths?: string[];
  /** Added after the CLI's own arguments (e.g. `--failures`, which only changes what is printed). */
  extraArgs?: string[];
  /** `inherit` (default) prints pg_prove's output; `capture` returns it instead. */
  output?: 'inherit' | 'capture';
}

export interface SupabaseTestDbResult {
  /** pg_prove's exit code: 0 when every file passed. */
  proveExitCode: number;
  /** Whether step 1 created pgTAP (so step 3 dropped it). */
  createdPgtap: boolean;
  /** Step 3's error, if it failed (something the run left behind depends on pgTAP). */
  dropError?: string;
  /** pg_prove's stdout and stderr, with `output: 'capture'`. */
  output?: string;
}

function runPgProve(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  capture: boolean,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('pg_prove', args, { cwd, env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8') }),
    );
  });
}

export async function supabaseTestDb(
  databaseUrl: string,
  options: SupabaseTestDbOptions = {},
): Promise<SupabaseTestDbResult> {
  const paths = (options.paths ?? [supabaseTestsDir]).map((entry) => path.resolve(entry));
  const first = paths[0] as string;
  const workingDir = path.extname(first) === '' ? first : path.dirname(first);
  const url = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGHOST: url.hostname,
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username) || 'postgres',
    PGDATABASE: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
  };
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ present: boolean }>(
      `select exists (select 1 from pg_extension where extname = 'pgtap') as present`,
    );
    const createdPgtap = !rows[0]?.present;
    await client.query(ENABLE_PGTAP);
    const capture = options.output === 'capture';
    const prove = await runPgProve(
      ['--ext', '.pg', '--ext', '.sql', '-r', ...paths, ...(options.extraArgs ?? [])],
      workingDir,
      env,
      capture,
    );
    let dropError: string | undefined;
    if (createdPgtap) {
      await client.query(DISABLE_PGTAP).catch((error: unknown) => {
        dropError = (error as Error).message;
      });
    }
    return {
      proveExitCode: prove.code,
      createdPgtap,
      ...(dropError === undefined ? {} : { dropError }),
      ...(capture ? { output: prove.output } : {}),
    };
  } finally {
    await client.end();
  }
}

// `npm run test:pg`: what `npm test` does not run on its shared PostgreSQL. First the pgTAP suite
// under supabase/tests the way `supabase test db` runs it (pg_prove -r over the folder, every file
// on its own connection through psql, the tests.* helpers from the first file) on a throwaway
// server of the embedded binaries that has only the migrations, then the vitest files that need a
// server of their own or pg_prove (*.pg.test.ts). pg_prove and psql are the only system packages
// (`npm run setup:system`).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { readSuite } from '#pgtap/suite.ts';
import { useMemoryScratch } from '../testing/memory-scratch.ts';
import { startCluster } from './cluster.ts';
import { supabaseTestDb } from './supabase-test-db.ts';

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function pgProve(): Promise<number> {
  const suite = readSuite();
  const cluster = await startCluster();
  try {
    console.log(
      `test:pg: supabase test db, as the CLI runs it: pg_prove -r supabase/tests (${suite.all.length} files: ` +
        `${suite.setup.name}, ${suite.tests.length} under database/, ${suite.teardown.name}) on PostgreSQL 15 (embedded, port ${cluster.port})`,
    );
    const result = await supabaseTestDb(cluster.url, { extraArgs: ['--failures'] });
    if (result.dropError) {
      console.error(
        `test:pg: after the run, \`drop extension pgtap\` failed, as it would for the CLI: ${result.dropError}`,
      );
      return 1;
    }
    return result.proveExitCode;
  } finally {
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  // The throwaway server, and the vitest run's (tools/testing/memory-scratch.ts).
  useMemoryScratch();
  const proved = await pgProve().catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('test:pg: pg_prove not found; run `npm run setup:system` (libtap-parser-sourcehandler-pgtap-perl)');
    } else {
      console.error(`test:pg: ${(error as Error).message}`);
    }
    return 1;
  });
  const vitest = await run(process.execPath, [
    path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--config',
    'vitest.pg.config.ts',
  ]);
  if (proved !== 0 || vitest !== 0) {
    console.error(`test:pg: failed (pg_prove exit ${proved}, vitest exit ${vitest})`);
    process.exit(1);
  }
}

await main();

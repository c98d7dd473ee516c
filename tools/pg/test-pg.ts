// `npm run test:pg`: the parity run on a real PostgreSQL 15. First every pgtap/*.test.sql through
// pg_prove on a throwaway cluster, then the vitest files that need Postgres (*.pg.test.ts) or must
// hold on both engines (*.parity.test.ts, here with STUDYHALL_TEST_PG=1).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pgtapDir, repoRoot } from '../db/paths.ts';
import { postgresBinDir, startCluster } from './cluster.ts';

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function pgProve(): Promise<number> {
  const files = readdirSync(pgtapDir)
    .filter((name) => name.endsWith('.test.sql'))
    .sort()
    .map((name) => path.join('pgtap', name));
  const cluster = await startCluster({ withTestHelpers: true });
  try {
    console.log(`test:pg: pg_prove over ${files.length} pgTAP files on PostgreSQL 15 (port ${cluster.port})`);
    return await run('pg_prove', ['--host', '127.0.0.1', '--port', String(cluster.port), '--username', 'postgres',
      '--dbname', 'studyhall', '--failures', ...files]);
  } finally {
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  try {
    postgresBinDir();
  } catch (error) {
    console.error(`test:pg: ${(error as Error).message}`);
    process.exit(1);
  }
  const proved = await pgProve().catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('test:pg: pg_prove not found; run `npm run setup:system` (libtap-parser-sourcehandler-pgtap-perl)');
    } else {
      console.error(`test:pg: ${(error as Error).message}`);
    }
    return 1;
  });
  const vitest = await run(process.execPath, [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run',
    '--config', 'vitest.pg.config.ts'], { ...process.env, STUDYHALL_TEST_PG: '1' });
  if (proved !== 0 || vitest !== 0) {
    console.error(`test:pg: failed (pg_prove exit ${proved}, vitest exit ${vitest})`);
    process.exit(1);
  }
}

await main();

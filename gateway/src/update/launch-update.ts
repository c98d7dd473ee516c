// Starts the updater (run-update-cli.ts) as a detached process that outlives this gateway, with its
// output appended to LOG_DIR/update.log, and hands it the update lock.
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import type { UpdatePlan } from './run-update.ts';
import type { UpdateFiles } from './update-state.ts';

// The updater runs from its TypeScript source with tsx, also when this gateway runs compiled
// (.build/server), so it is located from the checkout rather than from this module's own URL.
// tsx is resolved from the studyhall checkout that runs this gateway, not from the repo it updates.
const toolRoot = repoRoot;
const runnerCli = path.join(toolRoot, 'gateway', 'src', 'update', 'run-update-cli.ts');

/** Returns the runner's pid. The caller must hold the lock; afterwards the lock names the runner. */
export async function launchDetachedUpdate(plan: UpdatePlan, files: UpdateFiles): Promise<number> {
  const logHandle = await open(files.log, 'a', 0o600);
  try {
    const runner = spawn(process.execPath, ['--import', 'tsx', runnerCli, JSON.stringify(plan)], {
      cwd: toolRoot,
      detached: true,
      stdio: ['ignore', logHandle.fd, logHandle.fd],
    });
    runner.unref();
    if (runner.pid === undefined) throw new Error('the updater process did not start');
    // The lock now names the runner, so it survives this gateway's restart.
    const lock = await open(files.lock, 'w');
    await lock.writeFile(String(runner.pid));
    await lock.close();
    return runner.pid;
  } finally {
    await logHandle.close();
  }
}

// The detached updater (`POST /api/update-now` starts it): stash local changes when confirmed
// (never discard), `git pull --ff-only`, install, build, restart. It outlives the gateway it
// restarts, records each step in LOG_DIR/update.json, and releases update.lock when it ends.
import { execFile, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { promisify } from 'node:util';
import { z } from 'zod';
import { git } from './git.ts';
import { releaseUpdateLock, updateFiles, writeUpdateState, type UpdateState } from './update-state.ts';

const execFileAsync = promisify(execFile);

export const updatePlanSchema = z.object({
  repoDir: z.string(),
  logDir: z.string(),
  remote: z.string(),
  branch: z.string(),
  stash: z.boolean(),
  installCommand: z.string(),
  buildCommand: z.string(),
  restart: z.enum(['self', 'none']),
  gatewayPid: z.number().int(),
  fromSha: z.string().nullable(),
});

export type UpdatePlan = z.infer<typeof updatePlanSchema>;

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

async function runShell(command: string, cwd: string): Promise<void> {
  if (command === '') return;
  log(`$ ${command}`);
  const { stdout, stderr } = await execFileAsync('sh', ['-c', command], { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 });
  if (stdout.trim()) log(stdout.trimEnd());
  if (stderr.trim()) log(stderr.trimEnd());
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Stops the running gateway and starts `npm start` again, detached, logging beside the update. */
async function restartGateway(plan: UpdatePlan): Promise<void> {
  log(`stopping the gateway (pid ${plan.gatewayPid})`);
  process.kill(plan.gatewayPid, 'SIGTERM');
  if (!(await waitForExit(plan.gatewayPid, 30_000))) throw new Error('the gateway did not stop within 30 s');
  const out = openSync(`${plan.logDir}/studyhall.log`, 'a');
  const child = spawn('npm', ['start'], { cwd: plan.repoDir, detached: true, stdio: ['ignore', out, out], env: process.env });
  child.unref();
  log(`started npm start (pid ${child.pid})`);
}

export async function runUpdate(plan: UpdatePlan): Promise<UpdateState> {
  const files = updateFiles(plan.logDir);
  const state: UpdateState = {
    state: 'running',
    step: 'starting',
    started_at: new Date().toISOString(),
    finished_at: null,
    from_sha: plan.fromSha,
    to_sha: null,
    stash: null,
    error: null,
  };
  const step = async (name: string, work: () => Promise<void>) => {
    state.step = name;
    await writeUpdateState(files, state);
    log(`step: ${name}`);
    await work();
  };
  try {
    if (plan.stash) {
      await step('stash', async () => {
        const name = `studyhall-update ${state.started_at}`;
        await git(plan.repoDir, ['stash', 'push', '--include-untracked', '-m', name]);
        state.stash = name;
      });
    }
    await step('pull', async () => {
      log(await git(plan.repoDir, ['pull', '--ff-only', plan.remote, plan.branch], 120_000));
      state.to_sha = await git(plan.repoDir, ['rev-parse', 'HEAD']);
    });
    await step('install', () => runShell(plan.installCommand, plan.repoDir));
    await step('build', () => runShell(plan.buildCommand, plan.repoDir));
    state.state = 'succeeded';
    state.finished_at = new Date().toISOString();
    state.step = 'done';
    await writeUpdateState(files, state);
    await releaseUpdateLock(files);
    if (plan.restart === 'self') await restartGateway(plan);
  } catch (error) {
    state.state = 'failed';
    state.finished_at = new Date().toISOString();
    state.error = (error as Error).message;
    log(`failed at ${state.step}: ${state.error}`);
    await writeUpdateState(files, state);
    await releaseUpdateLock(files);
  }
  return state;
}

// The detached updater (`POST /api/update-now` starts it): stash local changes when confirmed
// (never discard), `git pull --ff-only`, install, build, restart. It outlives the gateway it
// restarts, records each step in LOG_DIR/update.json, and releases update.lock when it ends.
//
// Stopping it (SIGTERM or SIGINT to the updater) never leaves the checkout half-changed: a git step
// (stash, pull) always runs to its end, because git is only consistent between its own commands,
// and the updater stops right after it; an install or build command is stopped with its whole
// process group (npm and everything it started). Either way update.json says `interrupted`, the
// step, the commits and the stash, and the lock is released, so running the update again finishes
// the job (the pull is then a no-op, install and build run again).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { z } from 'zod';
import { git } from './git.ts';
import { processIsAlive, releaseUpdateLock, updateFiles, writeUpdateState, type UpdateState } from './update-state.ts';

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

/** How long install or build may take, and how long a stopped command gets before SIGKILL. */
const SHELL_STEP_TIMEOUT_MS = 15 * 60_000;
const KILL_GRACE_MS = 5_000;

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

class Interrupted extends Error {
  constructor(
    readonly signal: string,
    step: string,
  ) {
    super(`interrupted by ${signal} during ${step}; run the update again to finish it`);
    this.name = 'Interrupted';
  }
}

/** The signal that asked the updater to stop, and the install/build command to stop with it. */
class StopRequest {
  signal: NodeJS.Signals | undefined;
  private stopRunning: (() => void) | undefined;

  request(signal: NodeJS.Signals): void {
    if (this.signal) return;
    this.signal = signal;
    log(`received ${signal}: stopping after the current git command, or stopping the current command`);
    this.stopRunning?.();
  }

  /** Runs a shell command in its own process group, which a stop request terminates as a whole. */
  async runShell(command: string, cwd: string, step: string): Promise<void> {
    if (command === '') return;
    log(`$ ${command}`);
    const child = spawn('sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    this.stopRunning = () => {
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const overrun = setTimeout(() => {
      log(`${step} took longer than ${SHELL_STEP_TIMEOUT_MS / 60_000} minutes; stopping it`);
      this.stopRunning?.();
    }, SHELL_STEP_TIMEOUT_MS);
    try {
      const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
        (resolve, reject) => {
          child.on('error', reject);
          child.on('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
        },
      );
      // What the command started in the background goes with it.
      signalGroup('SIGKILL');
      if (this.signal) throw new Interrupted(this.signal, step);
      if (code !== 0) throw new Error(`\`${command}\` failed (${signal ? `signal ${signal}` : `exit code ${code}`})`);
    } finally {
      clearTimeout(overrun);
      clearTimeout(killTimer);
      this.stopRunning = undefined;
    }
  }

  /** Called between steps: a stop request ends the update here. */
  checkpoint(step: string): void {
    if (this.signal) throw new Interrupted(this.signal, step);
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processIsAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/**
 * Stops the running gateway and starts `npm start` again, detached, logging beside the update. A
 * gateway that has already stopped was stopped by its operator: it is not started again.
 */
async function restartGateway(plan: UpdatePlan): Promise<void> {
  if (!processIsAlive(plan.gatewayPid)) {
    log(`the gateway (pid ${plan.gatewayPid}) has already stopped; not starting it again`);
    return;
  }
  log(`stopping the gateway (pid ${plan.gatewayPid})`);
  process.kill(plan.gatewayPid, 'SIGTERM');
  if (!(await waitForExit(plan.gatewayPid, 30_000))) throw new Error('the gateway did not stop within 30 s');
  const out = openSync(`${plan.logDir}/studyhall.log`, 'a');
  const child = spawn('npm', ['start'], {
    cwd: plan.repoDir,
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  log(`started npm start (pid ${child.pid})`);
}

export async function runUpdate(plan: UpdatePlan, stop = new StopRequest()): Promise<UpdateState> {
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
    stop.checkpoint(state.step);
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
    await step('install', () => stop.runShell(plan.installCommand, plan.repoDir, 'install'));
    await step('build', () => stop.runShell(plan.buildCommand, plan.repoDir, 'build'));
    stop.checkpoint(state.step);
    state.state = 'succeeded';
    state.finished_at = new Date().toISOString();
    state.step = 'done';
    await writeUpdateState(files, state);
    await releaseUpdateLock(files);
    if (plan.restart === 'self') await restartGateway(plan);
  } catch (error) {
    state.state = error instanceof Interrupted ? 'interrupted' : 'failed';
    state.finished_at = new Date().toISOString();
    state.error = (error as Error).message;
    log(`${state.state} at ${state.step}: ${state.error}`);
    await writeUpdateState(files, state);
    await releaseUpdateLock(files);
  }
  return state;
}

/** The updater process: SIGTERM and SIGINT stop it cleanly (see the header comment). */
export async function runUpdateProcess(plan: UpdatePlan): Promise<UpdateState> {
  const stop = new StopRequest();
  process.on('SIGTERM', () => stop.request('SIGTERM'));
  process.on('SIGINT', () => stop.request('SIGINT'));
  return runUpdate(plan, stop);
}

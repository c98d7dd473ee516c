// SIGTERM during a self-update. What is correct:
// - to the updater during install or build: the command and everything it started stop, update.json
//   says `interrupted` at that step (with the commits), the lock is released, the updater exits
//   within seconds, and running the update again finishes the job;
// - to the updater during a git step: git is never cut off half-way (it is consistent only between
//   its own commands); the updater stops right after it, the checkout is clean at a whole commit;
// - to the gateway while the detached updater runs: the gateway stops at once (exit 0), the updater
//   finishes on its own and does not start a gateway its operator has just stopped.
import { execFileSync, spawn } from 'node:child_process';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { procState } from '#tools/testing/unreaped-child.ts';
import { makeFixtureRepo, makeTempDir, runGit, startTestGateway, type TestGateway } from './helpers.ts';

let temp: { dir: string; remove(): Promise<void> };
let repoDir: string;
let devDir: string;

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
/**
 * Running: there, and not a zombie. A killed command whose shell died first is reparented to the
 * container's init, which may never reap it, so a signal 0 would call it alive for good.
 */
const isAlive = (pid: number) => {
  const state = procState(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
};

async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readJson(file: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function pushRemoteCommit(message: string): Promise<string> {
  runGit(devDir, 'pull', '--quiet', '--ff-only', 'origin', 'main');
  await writeFile(path.join(devDir, 'CHANGELOG.md'), `${message}\n`, { flag: 'a' });
  runGit(devDir, 'add', '.');
  runGit(devDir, 'commit', '--quiet', '-m', message);
  runGit(devDir, 'push', '--quiet', 'origin', 'main');
  return runGit(devDir, 'rev-parse', 'HEAD');
}

function gatewayOn(installCommand: string): Promise<TestGateway> {
  return startTestGateway({
    repoDir,
    config: {
      update: {
        remote: 'origin',
        branch: undefined,
        installCommand,
        buildCommand: 'echo build-step-ran',
        restart: 'none',
      },
    },
    backend: { url: 'http://127.0.0.1:1', anonKey: 'anon', serviceRoleKey: 'service' },
  });
}

async function expectCleanCheckoutAt(sha: string): Promise<void> {
  expect(runGit(repoDir, 'rev-parse', 'HEAD')).toBe(sha);
  expect(runGit(repoDir, 'status', '--porcelain')).toBe('');
  expect(await exists(path.join(repoDir, '.git', 'index.lock'))).toBe(false);
}

async function startUpdate(gateway: TestGateway): Promise<number> {
  const response = await gateway.app.inject({ method: 'POST', url: '/api/update-now' });
  expect(response.statusCode, response.body).toBe(202);
  const lock = path.join(gateway.logDir, 'update.lock');
  let runnerPid = 0;
  await waitFor('the runner to take the lock', async () => {
    runnerPid = Number((await readFile(lock, 'utf8').catch(() => '')) || 0);
    return runnerPid > 0 && runnerPid !== process.pid;
  });
  return runnerPid;
}

async function finishedState(logDir: string): Promise<Record<string, unknown>> {
  let state: Record<string, unknown> | null = null;
  await waitFor('the update to end', async () => {
    state = await readJson(path.join(logDir, 'update.json'));
    return Boolean(state && state.state !== 'running') && !(await exists(path.join(logDir, 'update.lock')));
  });
  return state as unknown as Record<string, unknown>;
}

beforeAll(async () => {
  temp = await makeTempDir('update-sigterm');
  const bare = path.join(temp.dir, 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  repoDir = await makeFixtureRepo(path.join(temp.dir, 'checkout'));
  runGit(repoDir, 'remote', 'add', 'origin', bare);
  runGit(repoDir, 'push', '--quiet', '-u', 'origin', 'main');
  devDir = path.join(temp.dir, 'dev');
  execFileSync('git', ['clone', '--quiet', bare, devDir]);
  runGit(devDir, 'config', 'user.email', 'dev@example.com');
  runGit(devDir, 'config', 'user.name', 'Dev');
}, 30_000);
afterAll(() => temp.remove());

describe('SIGTERM to the updater', () => {
  it('during install: stops the command and all it started, records interrupted, and a second run finishes', async () => {
    const pids = path.join(temp.dir, 'install-pids');
    const remoteSha = await pushRemoteCommit('A commit to update to');
    const gateway = await gatewayOn(`echo $$ > ${pids}.shell; sleep 60 & echo $! > ${pids}.background; wait`);
    try {
      const runnerPid = await startUpdate(gateway);
      await waitFor('install to be running', () => exists(`${pids}.background`));
      const shellPid = Number(await readFile(`${pids}.shell`, 'utf8'));
      const backgroundPid = Number(await readFile(`${pids}.background`, 'utf8'));
      const stoppedAt = Date.now();
      process.kill(runnerPid, 'SIGTERM');
      const state = await finishedState(gateway.logDir);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(state).toMatchObject({ state: 'interrupted', step: 'install', to_sha: remoteSha });
      expect(state.error).toMatch(/SIGTERM during install.*run the update again/);
      await waitFor(
        'the updater and its commands to be gone',
        () => !isAlive(runnerPid) && !isAlive(shellPid) && !isAlive(backgroundPid),
        10_000,
      );
      await expectCleanCheckoutAt(remoteSha);
      expect(await readFile(path.join(gateway.logDir, 'update.log'), 'utf8')).not.toContain('build-step-ran');
    } finally {
      await gateway.close();
    }
    // Running it again finishes the job: the pull is a no-op, install and build run.
    const again = await gatewayOn('echo install-again');
    try {
      await startUpdate(again);
      expect(await finishedState(again.logDir)).toMatchObject({ state: 'succeeded', to_sha: remoteSha, error: null });
      const log = await readFile(path.join(again.logDir, 'update.log'), 'utf8');
      expect(log).toContain('install-again');
      expect(log).toContain('build-step-ran');
    } finally {
      await again.close();
    }
  }, 60_000);

  it('during the pull: lets git finish, stops before install, and leaves a clean checkout at a whole commit', async () => {
    const inGit = path.join(temp.dir, 'inside-git');
    const release = path.join(temp.dir, 'release-git');
    const installRan = path.join(temp.dir, 'install-ran');
    const hook = path.join(repoDir, '.git', 'hooks', 'reference-transaction');
    // Every ref update of the pull waits while prepared until the test releases it (at most 20 s),
    // so SIGTERM lands inside git, and git goes on only once the updater has taken it.
    await writeFile(
      hook,
      `#!/bin/sh\nif [ "$1" = "prepared" ]; then touch ${inGit}; i=0; while [ ! -e ${release} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; fi\n`,
    );
    await chmod(hook, 0o755);
    const fromSha = runGit(repoDir, 'rev-parse', 'HEAD');
    const remoteSha = await pushRemoteCommit('Another commit to update to');
    const gateway = await gatewayOn(`touch ${installRan}`);
    try {
      const runnerPid = await startUpdate(gateway);
      await waitFor('git to be inside the pull', () => exists(inGit));
      process.kill(runnerPid, 'SIGTERM');
      await waitFor('the updater to take the SIGTERM', async () =>
        (await readFile(path.join(gateway.logDir, 'update.log'), 'utf8').catch(() => '')).includes('received SIGTERM'),
      );
      await writeFile(release, '');
      const state = await finishedState(gateway.logDir);
      expect(state).toMatchObject({ state: 'interrupted', step: 'pull', from_sha: fromSha, to_sha: remoteSha });
      await expectCleanCheckoutAt(remoteSha);
      expect(await exists(installRan)).toBe(false);
    } finally {
      await writeFile(release, '');
      await gateway.close();
      await writeFile(hook, '#!/bin/sh\n');
    }
  }, 60_000);
});

describe('SIGTERM to the gateway while an update runs', () => {
  it('stops the gateway at once; the update finishes on its own and does not restart a stopped gateway', async () => {
    const remoteSha = await pushRemoteCommit('A third commit');
    const logDir = path.join(temp.dir, 'gateway-process-logs');
    // The install waits until the gateway has stopped (the test then creates `gatewayStopped`; at
    // most 20 s), so the update surely runs on past the gateway.
    const gatewayStopped = path.join(temp.dir, 'gateway-stopped');
    const installCommand = `i=0; while [ ! -e ${gatewayStopped} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`;
    const options = { repoDir, logDir, backendUrl: 'http://127.0.0.1:1', installCommand, restart: 'self' };
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'gateway', 'test', 'fixtures', 'gateway-process.ts'),
        JSON.stringify(options),
      ],
      { cwd: repoRoot },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor('the gateway to listen', () => output.includes('listening '), 30_000);
    const url = /listening (\S+)/.exec(output)?.[1] as string;
    const started = await fetch(`${url}/api/update-now`, { method: 'POST' });
    expect(started.status).toBe(202);

    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(output).toContain('SIGTERM, stopping');
    await writeFile(gatewayStopped, '');

    expect(await finishedState(logDir)).toMatchObject({ state: 'succeeded', to_sha: remoteSha, error: null });
    expect(await readFile(path.join(logDir, 'update.log'), 'utf8')).toContain(
      'has already stopped; not starting it again',
    );
    expect(await exists(path.join(logDir, 'studyhall.log'))).toBe(false);
    await expectCleanCheckoutAt(remoteSha);
  }, 60_000);
});

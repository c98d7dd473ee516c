// The updater's restart step (`UPDATE_RESTART=self`), which the route tests configure away: it
// stops the gateway process it was given and starts `npm start` again in the checkout.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUpdate } from '../src/update/run-update.ts';
import { makeFixtureRepo, makeTempDir, runGit } from './helpers.ts';

let temp: { dir: string; remove(): Promise<void> };
let repoDir: string;

beforeAll(async () => {
  temp = await makeTempDir('runner');
  const bare = path.join(temp.dir, 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  repoDir = await makeFixtureRepo(path.join(temp.dir, 'checkout'));
  // `npm start` of this checkout just leaves a mark that it ran.
  const start = `node -e "require('fs').writeFileSync('restarted.txt', String(process.pid))"`;
  await writeFile(
    path.join(repoDir, 'package.json'),
    `${JSON.stringify({ name: 'fixture', version: '1.2.3', scripts: { start } }, null, 2)}\n`,
  );
  await writeFile(path.join(repoDir, '.gitignore'), 'web/dist/\nrestarted.txt\n');
  runGit(repoDir, 'commit', '--quiet', '-am', 'Add a start script');
  runGit(repoDir, 'remote', 'add', 'origin', bare);
  runGit(repoDir, 'push', '--quiet', '-u', 'origin', 'main');
});
afterAll(() => temp.remove());

describe('runUpdate with restart self', () => {
  it('stops the running gateway, then starts npm start in the checkout', async () => {
    const fakeGateway = spawn('sleep', ['60']);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      fakeGateway.on('exit', (_code, signal) => resolve(signal)),
    );
    const logDir = path.join(temp.dir, 'logs');
    await mkdir(logDir, { recursive: true });
    const state = await runUpdate({
      repoDir,
      logDir,
      remote: 'origin',
      branch: 'main',
      stash: false,
      installCommand: '',
      buildCommand: '',
      restart: 'self',
      gatewayPid: fakeGateway.pid as number,
      fromSha: runGit(repoDir, 'rev-parse', 'HEAD'),
    });
    expect(state).toMatchObject({ state: 'succeeded', step: 'done', error: null });
    expect(await exited).toBe('SIGTERM');
    const marker = path.join(repoDir, 'restarted.txt');
    const deadline = Date.now() + 15_000;
    while (
      !(await stat(marker).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline)
        throw new Error(
          `npm start did not run: ${await readFile(path.join(logDir, 'studyhall.log'), 'utf8').catch(() => '')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Number(await readFile(marker, 'utf8'))).toBeGreaterThan(0);
  }, 30_000);

  it('records a failed pull and releases the lock', async () => {
    const logDir = path.join(temp.dir, 'logs-failed');
    await mkdir(logDir, { recursive: true });
    await writeFile(path.join(logDir, 'update.lock'), String(process.pid));
    const state = await runUpdate({
      repoDir,
      logDir,
      remote: 'nowhere',
      branch: 'main',
      stash: false,
      installCommand: '',
      buildCommand: '',
      restart: 'none',
      gatewayPid: process.pid,
      fromSha: null,
    });
    expect(state).toMatchObject({ state: 'failed', step: 'pull' });
    expect(state.error).toContain('nowhere');
    await expect(stat(path.join(logDir, 'update.lock'))).rejects.toThrow();
  });
});

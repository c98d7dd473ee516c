// The launcher of `npm start` (start.mjs) opens the database before it loads the gateway, and the
// gateway serves on that one database; it opens none when the gateway will run no localbase
// (BACKEND_URL). Neither its terminal nor its logs show the database's password. (A process that
// exits before the gateway takes the database stops its PostgreSQL: db/embedded-postgres.test.ts.)
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterDir, passwordFile } from '#db/embedded-postgres.ts';
import { freePort } from '#tools/testing/free-port.ts';
import { startNpmStart, type NpmStart } from '#tools/testing/npm-start.ts';
import { procState } from '#tools/testing/unreaped-child.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';

let temp: string;
let started: NpmStart | undefined;

beforeEach(async () => {
  temp = await makeReachableTempDir('studyhall-launcher-');
});

afterEach(async () => {
  if (started && started.child.exitCode === null) {
    started.child.kill('SIGTERM');
    await started.exited;
  }
  started = undefined;
  await rm(temp, { recursive: true, force: true });
});

async function launcherEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp, 'data'),
    LOG_DIR: path.join(temp, 'logs'),
    STUDYHALL_BOOT_PHASES: '1',
    ...extra,
  };
}

/** The boot phases the server printed, in order. */
function phases(output: string): string[] {
  return [...output.matchAll(/^studyhall: boot phase +\d+ ms (\S+)$/gm)].map((match) => match[1]!);
}

/** Running: there, and not a zombie. */
function alive(pid: number): boolean {
  const state = procState(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

describe('the launcher of npm start', () => {
  it('opens the database before it loads the gateway, which serves on that one PostgreSQL', async () => {
    const env = await launcherEnv();
    started = startNpmStart(env);
    await started.waitFor('boot phase', 120_000);
    await started.waitFor('gateway:ready', 10_000);
    const order = phases(started.output());
    expect(order.indexOf('launcher:database-opening')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('launcher:database-opening')).toBeLessThan(order.indexOf('gateway:modules-loaded'));
    expect(order.filter((phase) => phase === 'db:postgres-ready')).toHaveLength(1);
    expect(started.output()).toMatch(/studyhall: engine +PostgreSQL 15\.\d+ \(embedded\)/);

    const health = await fetch(`http://127.0.0.1:${env.PORT}/api/health`);
    expect(((await health.json()) as { backend?: { status?: string } }).backend?.status).toBe('up');
    const postmaster = Number(
      (await readFile(path.join(clusterDir(env.DATA_DIR!), 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(alive(postmaster)).toBe(false);

    // The superuser's password is for `npm run backend`'s DB URL only: npm start's terminal (which
    // may be projected for a class) and its logs never hold it.
    const password = (await readFile(passwordFile(env.DATA_DIR!), 'utf8')).trim();
    expect(password.length).toBeGreaterThan(20);
    expect(started.output()).not.toContain(password);
    const logs = await readdir(env.LOG_DIR!);
    expect(logs).toContain('server.log');
    for (const log of logs) expect(await readFile(path.join(env.LOG_DIR!, log), 'utf8')).not.toContain(password);
  }, 180_000);

  it('opens no database when the gateway fronts BACKEND_URL', async () => {
    const env = await launcherEnv({
      BACKEND_URL: `http://127.0.0.1:${await freePort()}`,
      BACKEND_ANON_KEY: 'anon-key-of-a-hosted-project',
    });
    started = startNpmStart(env);
    await started.waitFor('gateway:ready', 120_000);
    expect(phases(started.output()).filter((phase) => phase.startsWith('db:'))).toEqual([]);
    expect(existsSync(env.DATA_DIR!) && existsSync(path.join(env.DATA_DIR!, 'studyhall.lock'))).toBe(false);
    expect(existsSync(clusterDir(env.DATA_DIR!))).toBe(false);
  }, 180_000);
});

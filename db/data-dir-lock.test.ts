// The DATA_DIR lock after a crash: a lock whose owner process is gone (SIGKILL), or is a zombie its
// parent has not reaped, is taken over at once, a live owner still refuses (also a stopped one),
// and a recycled pid or an earlier boot is not taken for the owner.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnUnreaped, untilState, untilZombie } from '#tools/testing/unreaped-child.ts';
import {
  bootIdentity,
  DataDirLockedError,
  lockDataDir,
  lockPathFor,
  processIsZombie,
  processStartTime,
  type LockOwner,
} from './data-dir-lock.ts';
import { openDatabase } from './database.ts';
import { repoRoot } from './paths.ts';

function runFixture(script: string, dataDir: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`fixture exited early with ${code}: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
}

async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  expect(await exited(child)).toBe('SIGKILL');
}

async function readOwner(dataDir: string): Promise<LockOwner> {
  return JSON.parse(await readFile(lockPathFor(dataDir), 'utf8')) as LockOwner;
}

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-lock-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('the DATA_DIR lock', () => {
  it('records the owner: pid, boot and start time', async () => {
    const unlock = await lockDataDir(dataDir);
    try {
      const owner = await readOwner(dataDir);
      expect(owner.pid).toBe(process.pid);
      expect(owner.boot).toBe(bootIdentity());
      expect(owner.started).toBe(processStartTime(process.pid));
    } finally {
      await unlock();
    }
    await expect(stat(lockPathFor(dataDir))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses while the owner lives, with the message naming the lock, and takes over at once after SIGKILL', async () => {
    const holder = runFixture('db/fixtures/hold-lock.ts', dataDir);
    try {
      await ready(holder);
      const refusal = await lockDataDir(dataDir).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DataDirLockedError);
      expect((refusal as Error).message).toMatch(/in use by another studyhall process/);
      expect((refusal as Error).message).toContain(lockPathFor(dataDir));
      expect((await readOwner(dataDir)).pid).toBe(holder.pid);
    } finally {
      await killHard(holder);
    }
    // The lock file is still there, naming a process that no longer exists: taken over, no wait.
    expect((await readOwner(dataDir)).pid).toBe(holder.pid);
    const unlock = await lockDataDir(dataDir);
    expect((await readOwner(dataDir)).pid).toBe(process.pid);
    await unlock();
  }, 60_000);

  it('opens the embedded database at once after its server was killed with SIGKILL, data intact', async () => {
    const holder = runFixture('db/fixtures/hold-open.ts', dataDir);
    try {
      await ready(holder);
      await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await killHard(holder);
    }
    const database = await openDatabase({ dataDir });
    try {
      const { rows } = await database.pool.query(`select id from storage.buckets where id = 'lock-test'`);
      expect(rows).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 300_000);

  it('takes over at once from an owner killed with SIGKILL that lingers as a zombie, and refuses it while it lives', async () => {
    const holder = spawnUnreaped('db/fixtures/hold-lock.ts', { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' });
    try {
      await holder.ready;
      const { pid, started } = await readOwner(dataDir);
      expect(pid).not.toBe(holder.parent.pid);
      expect(processIsZombie(pid)).toBe(false);
      await expect(lockDataDir(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
      // Stopped is alive: a holder paused by SIGSTOP (or a debugger) keeps its lock.
      process.kill(pid, 'SIGSTOP');
      try {
        await untilState(pid, 'T');
        await expect(lockDataDir(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      process.kill(pid, 'SIGKILL');
      await untilZombie(pid);
      // Its pid and start time still answer as the lock recorded them; only its state says it is gone.
      expect(processStartTime(pid)).toBe(started);
      const unlock = await lockDataDir(dataDir);
      expect((await readOwner(dataDir)).pid).toBe(process.pid);
      await unlock();
      expect(processIsZombie(pid)).toBe(true);
    } finally {
      await holder.stop();
    }
  }, 60_000);

  it('does not take this process or a pid that does not exist for a zombie', () => {
    expect(processIsZombie(process.pid)).toBe(false);
    expect(processIsZombie(2 ** 22 + 1)).toBe(false);
  });

  it('does not take a recycled pid for the owner: same pid, another start time, is stale', async () => {
    const recycled: LockOwner = {
      pid: process.pid,
      boot: bootIdentity(),
      started: '1',
      token: 'someone-else',
      hostname: os.hostname(),
    };
    await writeFile(lockPathFor(dataDir), JSON.stringify(recycled));
    const unlock = await lockDataDir(dataDir);
    expect((await readOwner(dataDir)).token).not.toBe('someone-else');
    await unlock();
  });

  it('takes over a lock written in an earlier boot even if its pid runs now', async () => {
    const earlierBoot: LockOwner = {
      pid: process.pid,
      boot: 'an-earlier-boot',
      started: null,
      token: 'old',
      hostname: os.hostname(),
    };
    await writeFile(lockPathFor(dataDir), JSON.stringify(earlierBoot));
    const unlock = await lockDataDir(dataDir);
    expect((await readOwner(dataDir)).token).not.toBe('old');
    await unlock();
  });

  it('refuses a lock whose owner matches a running process (pid, boot and start time)', async () => {
    const live: LockOwner = {
      pid: process.pid,
      boot: bootIdentity(),
      started: processStartTime(process.pid),
      token: 'live',
      hostname: os.hostname(),
    };
    await writeFile(lockPathFor(dataDir), JSON.stringify(live));
    await expect(lockDataDir(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
    expect((await readOwner(dataDir)).token).toBe('live');
  });

  it('takes over a torn (empty) lock file once it is old, but not while it may still be being written', async () => {
    await writeFile(lockPathFor(dataDir), '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPathFor(dataDir), old, old);
    const unlock = await lockDataDir(dataDir);
    expect((await readOwner(dataDir)).pid).toBe(process.pid);
    await unlock();
  });

  it('takes over a lock directory of an earlier version only once it has gone stale', async () => {
    await mkdir(lockPathFor(dataDir));
    await expect(lockDataDir(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPathFor(dataDir), old, old);
    const unlock = await lockDataDir(dataDir);
    expect((await readOwner(dataDir)).pid).toBe(process.pid);
    await unlock();
  });

  it('lets exactly one of several processes starting at once take over a stale lock', async () => {
    const dead: LockOwner = {
      pid: process.pid,
      boot: bootIdentity(),
      started: '1',
      token: 'dead',
      hostname: os.hostname(),
    };
    await writeFile(lockPathFor(dataDir), JSON.stringify(dead));
    const starters = Array.from({ length: 4 }, () => runFixture('db/fixtures/hold-lock.ts', dataDir));
    const outcomes = await Promise.all(
      starters.map((child) =>
        ready(child).then(
          () => 'holds' as const,
          () => 'refused' as const,
        ),
      ),
    );
    try {
      expect(outcomes.filter((outcome) => outcome === 'holds')).toHaveLength(1);
      const winner = starters[outcomes.indexOf('holds')];
      expect((await readOwner(dataDir)).pid).toBe(winner?.pid);
    } finally {
      for (const child of starters) if (child.exitCode === null && child.signalCode === null) await killHard(child);
    }
  }, 120_000);

  it('a release never removes a lock that another process has taken over since', async () => {
    const unlock = await lockDataDir(dataDir);
    const other: LockOwner = {
      pid: process.pid,
      boot: bootIdentity(),
      started: '1',
      token: 'other',
      hostname: os.hostname(),
    };
    await writeFile(lockPathFor(dataDir), JSON.stringify(other));
    await unlock();
    expect((await readOwner(dataDir)).token).toBe('other');
  });
});

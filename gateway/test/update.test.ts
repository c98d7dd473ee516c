// Self-update against a real git checkout in a temp dir whose `origin` is a local bare repository.
// The update's install and build steps are configured as quick shell commands and restart as
// `none`, so the test exercises stash, pull and the detached runner without npm ci or a restart.
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_COOKIE, signAdminCookie } from '../src/admin/admin-cookie.ts';
import type { UpdateSettings } from '../src/config.ts';
import { notLoopbackReason } from '../src/security/same-origin.ts';
import { makeFixtureRepo, makeTempDir, runGit, startTestGateway, type TestGateway } from './helpers.ts';

const ADMIN_SECRET = 'update-test-admin-secret-32chars';
const LAN = '192.168.1.20';

let temp: { dir: string; remove(): Promise<void> };
let repoDir: string;
let devDir: string;
let gateway: TestGateway;
/** The update check's clock: it fetches at most once a minute of it. */
let clockMs = 1_000_000;
/** Every `git fetch` from the checkout runs the remote's upload-pack through a script that counts it here. */
let fetchLog: string;

async function fetchesSoFar(): Promise<number> {
  return (await readFile(fetchLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

async function pushRemoteCommit(message: string, version?: string): Promise<string> {
  runGit(devDir, 'pull', '--quiet', '--ff-only', 'origin', 'main');
  if (version) {
    const file = path.join(devDir, 'package.json');
    const pkg = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  }
  await writeFile(path.join(devDir, 'CHANGELOG.md'), `${message}\n`, { flag: 'a' });
  runGit(devDir, 'add', '.');
  runGit(devDir, 'commit', '--quiet', '-m', message);
  runGit(devDir, 'push', '--quiet', 'origin', 'main');
  return runGit(devDir, 'rev-parse', 'HEAD');
}

async function waitForUpdate(app: TestGateway['app'], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await app.inject({ url: '/api/update-status' })).json();
    if (!status.update_in_progress && status.last_update && status.last_update.state !== 'running') return status;
    if (Date.now() > deadline) throw new Error(`update did not finish: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function gatewayFor(settings: Partial<UpdateSettings> = {}) {
  return startTestGateway({
    repoDir,
    config: {
      admin: { enabled: true, secret: ADMIN_SECRET, emails: [] },
      update: {
        remote: 'origin',
        branch: undefined,
        installCommand: 'echo install-step-ran',
        buildCommand: 'echo build-step-ran',
        restart: 'none',
        ...settings,
      },
    },
    backend: { url: 'http://127.0.0.1:1', anonKey: 'anon', serviceRoleKey: 'service' },
    updateCheckNow: () => clockMs,
  });
}

beforeAll(async () => {
  temp = await makeTempDir('update');
  const bare = path.join(temp.dir, 'remote.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  repoDir = await makeFixtureRepo(path.join(temp.dir, 'checkout'));
  runGit(repoDir, 'remote', 'add', 'origin', bare);
  runGit(repoDir, 'push', '--quiet', '-u', 'origin', 'main');
  fetchLog = path.join(temp.dir, 'fetches.log');
  const countingUploadPack = path.join(temp.dir, 'counting-upload-pack');
  await writeFile(countingUploadPack, `#!/bin/sh\necho fetch >> '${fetchLog}'\nexec git upload-pack "$@"\n`, {
    mode: 0o755,
  });
  runGit(repoDir, 'config', 'remote.origin.uploadpack', countingUploadPack);
  devDir = path.join(temp.dir, 'dev');
  execFileSync('git', ['clone', '--quiet', bare, devDir]);
  runGit(devDir, 'config', 'user.email', 'dev@example.com');
  runGit(devDir, 'config', 'user.name', 'Dev');
  gateway = await gatewayFor();
}, 30_000);

afterAll(async () => {
  await gateway.close();
  await temp.remove();
});

describe('loopback detection', () => {
  it('accepts 127.0.0.1 and ::1 without forwarded headers, and nothing else', () => {
    const isLoopbackCaller = (remoteAddress: string | undefined, headers: Record<string, string>) =>
      notLoopbackReason({ socket: { remoteAddress }, headers: { host: 'localhost:3000', ...headers } }) === undefined;
    expect(isLoopbackCaller('127.0.0.1', {})).toBe(true);
    expect(isLoopbackCaller('::1', {})).toBe(true);
    expect(isLoopbackCaller('::ffff:127.0.0.1', {})).toBe(true);
    expect(isLoopbackCaller('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).toBe(false);
    expect(isLoopbackCaller('::1', { 'x-forwarded-host': 'studyhall.example' })).toBe(false);
    expect(isLoopbackCaller(LAN, {})).toBe(false);
    expect(isLoopbackCaller(undefined, {})).toBe(false);
  });

  it('over real sockets: a loopback connection is authorised, the same with x-forwarded-for is not', async () => {
    const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const plain = await (await fetch(`${baseUrl}/api/update-capabilities`)).json();
    const forwarded = await (
      await fetch(`${baseUrl}/api/update-capabilities`, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    ).json();
    expect(plain.can_update).toBe(true);
    expect(forwarded.can_update).toBe(false);
    const refused = await fetch(`${baseUrl}/api/update-now`, {
      method: 'POST',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'forbidden', admin_available: true });
  });

  it('over a real IPv6 loopback socket (::1): authorised, unless a forwarded header is present', async (context) => {
    const v6 = await gatewayFor();
    try {
      try {
        await v6.app.listen({ host: '::1', port: 0 });
      } catch {
        context.skip(); // no IPv6 loopback on this machine
      }
      const port = (v6.app.server.address() as { port: number }).port;
      expect((await (await fetch(`http://[::1]:${port}/api/update-capabilities`)).json()).can_update).toBe(true);
      expect(
        (
          await (
            await fetch(`http://[::1]:${port}/api/update-capabilities`, {
              headers: { 'x-forwarded-host': 'example.com' },
            })
          ).json()
        ).can_update,
      ).toBe(false);
    } finally {
      await v6.close();
    }
  });

  const lanAddress = Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
  it.skipIf(!lanAddress)('over a real socket from a LAN address: not authorised', async () => {
    const lan = await gatewayFor();
    try {
      await lan.app.listen({ host: '0.0.0.0', port: 0 });
      const port = (lan.app.server.address() as { port: number }).port;
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get({ host: lanAddress, port, path: '/api/update-capabilities', localAddress: lanAddress }, (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(JSON.parse(body).can_update).toBe(false);
    } finally {
      await lan.close();
    }
  });
});

describe('update status and check', () => {
  it('reports a clean checkout, its branch and who may update', async () => {
    const local = (await gateway.app.inject({ url: '/api/update-status' })).json();
    expect(local).toMatchObject({
      ok: true,
      authorized: true,
      admin_available: true,
      dirty: false,
      dirty_count: 0,
      dirty_files: [],
      branch: 'main',
    });
    const admin = (
      await gateway.app.inject({
        url: '/api/update-status',
        remoteAddress: LAN,
        headers: { cookie: `${ADMIN_COOKIE}=${signAdminCookie(Buffer.from(ADMIN_SECRET), 'owner')}` },
      })
    ).json();
    expect(admin.authorized).toBe(true);
  });

  it('detects that the checkout is behind its remote, by build stamp when the version changed', async () => {
    const upToDate = (await gateway.app.inject({ url: '/api/check-update' })).json();
    expect(upToDate).toMatchObject({ behind: 0, ahead: 0, update_available: false, compared_by: 'sha' });
    const remoteSha = await pushRemoteCommit('Add a changelog', '1.3.0');
    // Within the minute the remembered fetch answers; after it, a new fetch sees the commit.
    expect((await gateway.app.inject({ url: '/api/check-update' })).json()).toMatchObject({ behind: 0 });
    clockMs += 60_000;
    const behind = (await gateway.app.inject({ url: '/api/check-update' })).json();
    expect(behind).toMatchObject({
      ok: true,
      branch: 'main',
      behind: 1,
      ahead: 0,
      update_available: true,
      compared_by: 'build_stamp',
      local: { version: '1.2.3' },
      remote_head: { sha: remoteSha, version: '1.3.0' },
    });
  });

  it('answers 502 remote_unreachable when the remote cannot be fetched', async () => {
    const broken = await gatewayFor({ remote: 'nowhere' });
    try {
      const response = await broken.app.inject({ url: '/api/check-update' });
      expect(response.statusCode).toBe(502);
      expect(response.json().error).toBe('remote_unreachable');
    } finally {
      await broken.close();
    }
  });
});

describe('the server controls belong to the owner', () => {
  const adminCookie = () => `${ADMIN_COOKIE}=${signAdminCookie(Buffer.from(ADMIN_SECRET), 'owner')}`;

  it('tells a LAN caller without an admin session that it may not update, and the owner that it may', async () => {
    const lan = await gateway.app.inject({ url: '/api/update-capabilities', remoteAddress: LAN });
    expect(lan.statusCode).toBe(200);
    expect(lan.json()).toEqual({ can_update: false, admin_available: true });
    expect((await gateway.app.inject({ url: '/api/update-capabilities' })).json()).toEqual({
      can_update: true,
      admin_available: true,
    });
    const admin = await gateway.app.inject({
      url: '/api/update-capabilities',
      remoteAddress: LAN,
      headers: { cookie: adminCookie() },
    });
    expect(admin.json().can_update).toBe(true);
  });

  it('refuses check-update and update-status to a LAN caller, naming no file, branch or commit, and fetches nothing', async () => {
    await writeFile(path.join(repoDir, 'private-notes.txt'), 'mine\n');
    const fetchesBefore = await fetchesSoFar();
    clockMs += 60_000;
    try {
      for (const url of ['/api/check-update', '/api/update-status']) {
        const refused = await gateway.app.inject({ url, remoteAddress: LAN });
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ error: 'forbidden', admin_available: true });
        expect(refused.body).not.toMatch(/private-notes|main|sha|Initial fixture commit/);
      }
      expect(await fetchesSoFar()).toBe(fetchesBefore);
      const version = (await gateway.app.inject({ url: '/api/version', remoteAddress: LAN })).json();
      expect(version.commit_message).toBeNull();
      expect(version.git_sha).toMatch(/^[0-9a-f]{40}$/);
      expect((await gateway.app.inject({ url: '/api/version' })).json().commit_message).toEqual(expect.any(String));
      const admin = await gateway.app.inject({
        url: '/api/update-status',
        remoteAddress: LAN,
        headers: { cookie: adminCookie() },
      });
      expect(admin.json().dirty_files).toContain('private-notes.txt');
    } finally {
      await rm(path.join(repoDir, 'private-notes.txt'));
    }
  });

  it('fetches at most once a minute however many check, and callers at the same time share one fetch', async () => {
    clockMs += 60_000;
    const before = await fetchesSoFar();
    const together = await Promise.all(
      Array.from({ length: 10 }, () => gateway.app.inject({ url: '/api/check-update' })),
    );
    for (let call = 0; call < 10; call++) {
      together.push(await gateway.app.inject({ url: '/api/check-update' }));
      clockMs += 5_000;
    }
    expect(together.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(await fetchesSoFar()).toBe(before + 1);
    // The minute is over: the next check fetches again.
    clockMs += 10_000;
    expect((await gateway.app.inject({ url: '/api/check-update' })).statusCode).toBe(200);
    expect(await fetchesSoFar()).toBe(before + 2);
  });
});

describe('POST /api/update-now', () => {
  it('refuses a LAN caller with 403 and admin_available', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/api/update-now', remoteAddress: LAN });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: 'forbidden', admin_available: true });
  });

  it('answers 409 confirmation_required on a dirty tree, then stashes with confirm=1 and updates (202, new SHA in /api/version)', async () => {
    const remoteSha = runGit(devDir, 'rev-parse', 'HEAD');
    await writeFile(path.join(repoDir, 'package.json'), '{"name":"fixture","version":"1.2.3","local":"edit"}\n');
    await writeFile(path.join(repoDir, 'notes.txt'), 'my local notes\n');

    const dirty = await gateway.app.inject({ method: 'POST', url: '/api/update-now' });
    expect(dirty.statusCode).toBe(409);
    expect(dirty.json()).toMatchObject({ error: 'confirmation_required', dirty_count: 2 });
    expect(dirty.json().dirty_files.sort()).toEqual(['notes.txt', 'package.json']);
    expect((await gateway.app.inject({ url: '/api/version' })).json().git_sha).not.toBe(remoteSha);

    const accepted = await gateway.app.inject({ method: 'POST', url: '/api/update-now?confirm=1' });
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toMatchObject({ ok: true, started: true, stashing: true, poll: '/api/version' });

    const status = await waitForUpdate(gateway.app);
    expect(status.last_update).toMatchObject({ state: 'succeeded', to_sha: remoteSha, error: null });
    expect(status.last_update.stash).toMatch(/^studyhall-update /);
    expect((await gateway.app.inject({ url: '/api/version' })).json()).toMatchObject({
      git_sha: remoteSha,
      version: '1.3.0',
    });
    // Kept, not discarded: the stash holds both the edit and the untracked file.
    expect(runGit(repoDir, 'stash', 'list')).toContain(status.last_update.stash);
    expect(runGit(repoDir, 'show', 'stash@{0}:package.json')).toContain('"local":"edit"');
    expect(runGit(repoDir, 'show', 'stash@{0}^3:notes.txt')).toBe('my local notes');
    const log = await readFile(path.join(gateway.logDir, 'update.log'), 'utf8');
    expect(log).toContain('install-step-ran');
    expect(log).toContain('build-step-ran');
  }, 30_000);

  it('answers 409 update_in_progress to a second update while one runs', async () => {
    const slow = await gatewayFor({ installCommand: 'sleep 1.5' });
    try {
      const first = await slow.app.inject({ method: 'POST', url: '/api/update-now' });
      expect(first.statusCode).toBe(202);
      const second = await slow.app.inject({ method: 'POST', url: '/api/update-now' });
      expect(second.statusCode).toBe(409);
      expect(second.json().error).toBe('update_in_progress');
      expect((await waitForUpdate(slow.app)).last_update.state).toBe('succeeded');
      const third = await slow.app.inject({ method: 'POST', url: '/api/update-now' });
      expect(third.statusCode).toBe(202);
      await waitForUpdate(slow.app);
    } finally {
      await slow.close();
    }
  }, 30_000);

  it('accepts an admin cookie from a LAN address', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/api/update-now',
      remoteAddress: LAN,
      headers: { cookie: `${ADMIN_COOKIE}=${signAdminCookie(Buffer.from(ADMIN_SECRET), 'owner')}` },
    });
    expect(response.statusCode).toBe(202);
    await waitForUpdate(gateway.app);
  }, 30_000);
});

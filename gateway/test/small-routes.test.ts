import { cp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { makeTempDir, runGit, startTestGateway, writeFixtureDist, type TestGateway } from './helpers.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ config: { ai: { openai: true, gemini: false } } });
});
afterAll(() => gateway.close());

describe('small routes', () => {
  it('GET /__app/ping answers ok', async () => {
    const response = await gateway.app.inject({ url: '/__app/ping' });
    expect(response.statusCode).toBe(200);
    expect(response.json().ok).toBe(true);
  });

  it('GET /api/version reports version, git SHA, commit message and pwa_cache', async () => {
    const response = await gateway.app.inject({ url: '/api/version' });
    const sha = runGit(gateway.repoDir, 'rev-parse', 'HEAD');
    expect(response.json()).toEqual({
      version: '1.2.3',
      git_sha: sha,
      commit_message: 'Initial fixture commit',
      pwa_cache: `studyhall-v1.2.3-${sha.slice(0, 12)}`,
    });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('GET /api/ai-config answers two booleans and no key material', async () => {
    const response = await gateway.app.inject({ url: '/api/ai-config' });
    expect(response.json()).toEqual({ openai: true, gemini: false });
  });

  it('GET /sw.js substitutes version and cache name on each request, uncached', async () => {
    const response = await gateway.app.inject({ url: '/sw.js' });
    const sha = runGit(gateway.repoDir, 'rev-parse', 'HEAD');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/javascript');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toContain(`const CACHE_NAME = 'studyhall-v1.2.3-${sha.slice(0, 12)}';`);
    expect(response.body).toContain("const APP_VERSION = '1.2.3';");
    expect(response.body).not.toMatch(/__[A-Z_]+__/);
  });

  it('/__admin/* is refused as "admin mode not ready" until the admin console lands', async () => {
    for (const url of ['/__admin', '/__admin/login', '/__admin/verify']) {
      const response = await gateway.app.inject({ url });
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toMatchObject({ error: 'admin_mode_not_ready', admin_available: false });
    }
  });
});

/** A backend whose health route answers 200 and counts the probes it got. */
async function countingHealthBackend(): Promise<{ url: string; probes: () => number; close: () => void }> {
  let probes = 0;
  const backend = http.createServer((request, response) => {
    if (request.url === '/auth/v1/health') probes++;
    response.end('{}');
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
    probes: () => probes,
    close: () => backend.close(),
  };
}

describe('GET /api/health', () => {
  it('reports a backend that refuses connections as down, fast, and says when it measured', async () => {
    const started = Date.now();
    const response = await gateway.app.inject({ url: '/api/health' });
    expect(Date.now() - started).toBeLessThan(1_000);
    const body = response.json();
    expect(body).toMatchObject({
      ok: false,
      server: { status: 'up' },
      backend: { status: 'down' },
      cached: false,
      max_age_s: 15,
    });
    expect(Date.parse(body.measured_at)).toBeGreaterThan(started - 1);
    const again = (await gateway.app.inject({ url: '/api/health' })).json();
    expect(again).toMatchObject({ cached: true, measured_at: body.measured_at });
  });

  it('reports a backend that does not answer within the probe timeout as down, within that bound', async () => {
    const silent = http.createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const slow = await startTestGateway({
      backend: { url, anonKey: 'anon', serviceRoleKey: undefined },
      health: { probeTimeoutMs: 300 },
    });
    try {
      const started = Date.now();
      const body = (await slow.app.inject({ url: '/api/health' })).json();
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(body.backend).toMatchObject({ status: 'down', error: 'no answer within 300 ms' });
    } finally {
      await slow.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('reports a healthy backend as up, and re-measures after the cache expires', async () => {
    const backend = await countingHealthBackend();
    const { url } = backend;
    const healthy = await startTestGateway({
      backend: { url, anonKey: 'anon', serviceRoleKey: undefined },
      health: { cacheMs: 100 },
    });
    try {
      expect((await healthy.app.inject({ url: '/api/health' })).json()).toMatchObject({
        ok: true,
        backend: { status: 'up', http_status: 200 },
      });
      await healthy.app.inject({ url: '/api/health' });
      expect(backend.probes()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await healthy.app.inject({ url: '/api/health' }); // stale: answered at once, re-measured behind
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(backend.probes()).toBe(2);
    } finally {
      await healthy.close();
      backend.close();
    }
  });
});

describe('GET /api/health: the database engine', () => {
  it("names the embedded localbase's engine and why it is not the default, and nothing for a hosted backend", async () => {
    const database = {
      engine: 'PGlite 0.5.14 (PostgreSQL 18.6)',
      notice:
        'DATA_DIR holds a PGlite database (/data/pgdata), kept on PGlite; run `npm run db:move-to-postgres` to move it to PostgreSQL 15',
      legacy_pglite: true,
    };
    const embedded = await startTestGateway({ database });
    try {
      expect((await embedded.app.inject({ url: '/api/health' })).json().database).toEqual(database);
    } finally {
      await embedded.close();
    }
    expect((await gateway.app.inject({ url: '/api/health' })).json()).not.toHaveProperty('database');
  });
});

describe('GET /api/health with measureAtStart (npm start)', () => {
  it('has measured the backend once the server is ready, before anyone asks', async () => {
    const backend = await countingHealthBackend();
    const { url } = backend;
    const started = await startTestGateway({
      backend: { url, anonKey: 'anon', serviceRoleKey: undefined },
      health: { measureAtStart: true },
    });
    try {
      await started.app.ready();
      for (let waited = 0; backend.probes() === 0 && waited < 5_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(backend.probes()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const body = (await started.app.inject({ url: '/api/health' })).json();
      expect(body).toMatchObject({ ok: true, cached: true, backend: { status: 'up' } });
      expect(backend.probes()).toBe(1);
    } finally {
      await started.close();
      backend.close();
    }
  });
});

describe('outside a git checkout (an unpacked copy)', () => {
  it('still answers /api/version, without a SHA, and reports git failures of the update routes as JSON', async () => {
    const temp = await makeTempDir('nogit');
    try {
      await cp(path.join(repoRoot, 'web'), path.join(temp.dir, 'web'), {
        recursive: true,
        filter: (source) => !source.includes(`${path.sep}dist`),
      });
      await writeFile(path.join(temp.dir, 'package.json'), '{"name":"copy","version":"2.0.0"}\n');
      await writeFixtureDist(temp.dir);
      const copy = await startTestGateway({ repoDir: temp.dir });
      try {
        expect((await copy.app.inject({ url: '/api/version' })).json()).toEqual({
          version: '2.0.0',
          git_sha: null,
          commit_message: null,
          pwa_cache: 'studyhall-v2.0.0-dev',
        });
        expect((await copy.app.inject({ url: '/sw.js' })).body).toContain("const GIT_SHA = 'unknown';");
        const status = await copy.app.inject({ url: '/api/update-status' });
        expect(status.statusCode).toBe(500);
        expect(status.json().error).toBe('git_failed');
        const check = await copy.app.inject({ url: '/api/check-update' });
        expect(check.statusCode).toBe(500);
        expect(check.json().error).toBe('git_failed');
      } finally {
        await copy.close();
      }
    } finally {
      await temp.remove();
    }
  });
});

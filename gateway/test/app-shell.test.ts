import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixtureRepo, startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
  const dist = path.join(gateway.repoDir, 'web', 'dist');
  await mkdir(path.join(dist, 'assets'), { recursive: true });
  await writeFile(path.join(dist, 'assets', 'app.js'), 'console.log("app");\n');
  // A secret next to the checkout, and a symlink inside dist that points at it.
  await writeFile(path.join(gateway.repoDir, 'secret.txt'), 'do not serve\n');
  await symlink(path.join(gateway.repoDir, 'secret.txt'), path.join(dist, 'assets', 'leak.txt'));
});
afterAll(() => gateway.close());

/** Sends a request line exactly as written (no client-side path normalisation). */
async function rawGet(pathAsWritten: string): Promise<{ status: number; body: string }> {
  const address = await gateway.app
    .listen({ host: '127.0.0.1', port: 0 })
    .catch(() => `http://127.0.0.1:${(gateway.app.server.address() as net.AddressInfo).port}`);
  const port = Number(new URL(address).port);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${pathAsWritten} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
    );
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('end', () =>
      resolve({ status: Number(data.split(' ')[1]), body: data.split('\r\n\r\n').slice(1).join('\r\n\r\n') }),
    );
    socket.on('error', reject);
  });
}

describe('app shell', () => {
  it('serves index.html at / and for client-side routes, without caching it', async () => {
    for (const url of ['/', '/focus', '/community/groups/123']) {
      const response = await gateway.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('<title>studyhall</title>');
    }
  });

  it('serves built assets and answers a missing asset with a JSON 404, not the app', async () => {
    const asset = await gateway.app.inject({ url: '/assets/app.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toContain('console.log');
    const missing = await gateway.app.inject({ url: '/assets/missing.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('fences', () => {
  it.each(['/api', '/api/', '/api/unknown', '/api/pip/nope', '/__ai', '/__ai/x', '/__aianything', '/__nothing-here'])(
    'GET %s is a JSON 404, never the app',
    async (url) => {
      const response = await gateway.app.inject({ url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.json()).toEqual({ error: 'not_found', message: 'No route answers this path.', path: url });
    },
  );

  it('answers unknown methods and POSTs under the fences with JSON 404 as well', async () => {
    for (const [method, url] of [
      ['POST', '/api/nothing'],
      ['DELETE', '/__ai/x'],
      ['POST', '/some/page'],
    ] as const) {
      const response = await gateway.app.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().error).toBe('not_found');
    }
  });
});

describe('static files cannot escape web/dist', () => {
  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets%2f..%2f..%2fsecret.txt',
    '/..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/..%5c..%5csecret.txt',
  ])('refuses %s over a real socket', async (url) => {
    const response = await rawGet(url);
    expect(response.body).not.toContain('do not serve');
    expect([400, 404]).toContain(response.status);
  });

  it('keeps the build bookkeeping (dotfiles and dot folders) to itself with a JSON 404', async () => {
    const dist = path.join(gateway.repoDir, 'web', 'dist');
    await writeFile(path.join(dist, '.build-stamp.json'), '{"startedAt":1}\n');
    await mkdir(path.join(dist, '.vite'), { recursive: true });
    await writeFile(path.join(dist, '.vite', 'manifest.json'), '{}\n');
    for (const url of ['/.build-stamp.json', '/.vite/manifest.json', '/%2Evite/manifest.json']) {
      const response = await gateway.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ error: 'not_found' });
    }
  });

  it('refuses a symlink inside web/dist that points outside it', async () => {
    const response = await gateway.app.inject({ url: '/assets/leak.txt' });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('do not serve');
  });
});

describe('before the web app is built', () => {
  it('starts anyway: pages say how to build it with 503, the API fences still answer JSON 404, the remote is served', async () => {
    // Inside the first gateway's log folder, which its close() removes.
    const repoDir = await makeFixtureRepo(path.join(gateway.logDir, 'unbuilt'));
    await rm(path.join(repoDir, 'web', 'dist'), { recursive: true });
    const unbuilt = await startTestGateway({ repoDir });
    try {
      for (const url of ['/', '/focus']) {
        const page = await unbuilt.app.inject({ url });
        expect(page.statusCode, url).toBe(503);
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.body).toContain('npm run build:web');
      }
      const api = await unbuilt.app.inject({ url: '/api/nothing' });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({ error: 'not_found' });
      const remote = await unbuilt.app.inject({ url: '/companion/' });
      expect(remote.body).toContain('npm run build:companion');
    } finally {
      await unbuilt.close();
    }
  });
});

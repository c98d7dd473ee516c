// Cross-site and spoofed requests against what ambient credentials authorise: the loopback update,
// the admin cookie (on any state-changing route, and on the proxy, where it means the service key).
// Raw sockets from 127.0.0.1, so the headers are exactly what a browser, a proxy or an attacker's
// page would send.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_COOKIE, signAdminCookie } from '../src/admin/admin-cookie.ts';
import { runGit, startTestGateway, type TestGateway } from './helpers.ts';
import { rawRequest, type RawResponse } from './raw-http.ts';

const ADMIN_SECRET = 'same-origin-test-secret-32-chars';
const adminCookie = `${ADMIN_COOKIE}=${signAdminCookie(Buffer.from(ADMIN_SECRET), 'owner')}`;

let upstream: http.Server;
let reached: Array<{ url: string; authorization: string | undefined }> = [];
let gateway: TestGateway;
let baseUrl: string;
let port: string;

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    request.resume();
    reached.push({ url: request.url ?? '', authorization: request.headers.authorization });
    response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    backend: {
      url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      anonKey: 'anon',
      serviceRoleKey: 'service',
    },
    config: { admin: { enabled: true, secret: ADMIN_SECRET, emails: [] } },
  });
  // A route the admin console will add later: covered by the guard without opting in.
  gateway.app.post('/__admin-later/action', async () => ({ ok: true, acted: true }));
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  port = new URL(baseUrl).port;
  // A dirty checkout: an authorised update-now answers 409 confirmation_required and starts nothing.
  await writeFile(path.join(gateway.repoDir, 'local-notes.txt'), 'mine\n');
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  upstream.close();
});
beforeEach(() => {
  reached = [];
});

const updateNow = (headers: Record<string, string>, query = '') =>
  rawRequest(baseUrl, { method: 'POST', path: `/api/update-now${query}`, headers });
const errorOf = (response: RawResponse) => (JSON.parse(response.body) as { error: string }).error;

describe('POST /api/update-now from this computer', () => {
  it.each([['localhost:PORT'], ['127.0.0.1:PORT'], ['[::1]:PORT'], ['localhost'], ['LocalHost:PORT']])(
    'is authorised with Host %s and no Origin (a program on this computer)',
    async (host) => {
      const response = await updateNow({ host: host.replace('PORT', port) });
      expect(response.status).toBe(409);
      expect(errorOf(response)).toBe('confirmation_required');
    },
  );

  it('is authorised from the app itself: Origin of this server, Sec-Fetch-Site same-origin', async () => {
    const response = await updateNow({
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(errorOf(response)).toBe('confirmation_required');
  });

  it.each([
    ['forwarded', 'for=127.0.0.1'],
    ['x-forwarded-for', '127.0.0.1'],
    ['x-forwarded-host', 'localhost'],
    ['x-forwarded-proto', 'http'],
    ['x-forwarded-port', '3000'],
    ['x-real-ip', '127.0.0.1'],
    ['via', '1.1 localhost'],
    ['x-client-ip', '127.0.0.1'],
    ['true-client-ip', '127.0.0.1'],
    ['cf-connecting-ip', '127.0.0.1'],
    ['X-Forwarded-For', '127.0.0.1'],
  ])('is refused when a proxy header says who the client is (%s)', async (name, value) => {
    const response = await updateNow({ [name]: value });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'forbidden', admin_available: true });
  });

  it.each([
    'evil.example',
    'evil.example:PORT',
    '192.168.1.20:PORT',
    'localhost.evil.example:PORT',
    '127.0.0.1.nip.io:PORT',
    'localhost@evil.example',
    '0.0.0.0:PORT',
  ])('is refused for a foreign Host %s (DNS rebinding), even when the Origin matches it', async (host) => {
    const withPort = host.replace('PORT', port);
    const response = await updateNow({ host: withPort, origin: `http://${withPort}` });
    expect(response.status).toBe(403);
    expect(errorOf(response)).toMatch(/^(forbidden|csrf_refused)$/);
  });

  it.each([
    [{ origin: 'https://evil.example' }],
    [{ origin: 'null' }],
    [{ origin: 'http://localhost:1' }],
    [{ origin: 'http://127.0.0.1:PORT.evil.example' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ origin: 'http://localhost:PORT', 'sec-fetch-site': 'cross-site' }],
  ])('is refused 403 csrf_refused for a page of another site: %j', async (headers) => {
    const withPort = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, value.replace('PORT', port)]),
    );
    const response = await updateNow({ host: `localhost:${port}`, ...withPort });
    expect(response.status).toBe(403);
    expect(errorOf(response)).toBe('csrf_refused');
  });

  it('never stashes for a cross-site page that asks with confirm=1', async () => {
    const response = await updateNow({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, '?confirm=1');
    expect(response.status).toBe(403);
    expect(runGit(gateway.repoDir, 'stash', 'list')).toBe('');
    expect(runGit(gateway.repoDir, 'status', '--porcelain')).toContain('local-notes.txt');
  });

  it('reports those callers as not the owner in /api/update-capabilities', async () => {
    const status = async (headers: Record<string, string>) =>
      JSON.parse((await rawRequest(baseUrl, { path: '/api/update-capabilities', headers })).body).can_update;
    expect(await status({})).toBe(true);
    expect(await status({ 'x-real-ip': '127.0.0.1' })).toBe(false);
    expect(await status({ host: `evil.example:${port}` })).toBe(false);
    expect(await status({ 'sec-fetch-site': 'cross-site' })).toBe(false);
  });
});

describe('the admin cookie', () => {
  it("authorises update-now from a LAN address only from this server's own pages", async () => {
    const lan = { remoteAddress: '192.168.1.20', headers: { cookie: adminCookie, host: '192.168.1.5:3000' } };
    const sameOrigin = await gateway.app.inject({
      method: 'POST',
      url: '/api/update-now',
      ...lan,
      headers: { ...lan.headers, origin: 'http://192.168.1.5:3000' },
    });
    expect(sameOrigin.json().error).toBe('confirmation_required');
    const crossSite = await gateway.app.inject({
      method: 'POST',
      url: '/api/update-now',
      ...lan,
      headers: { ...lan.headers, origin: 'https://evil.example' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error).toBe('csrf_refused');
  });

  it('never turns a cross-site request through the proxy into a service-role call, for any method', async () => {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      const response = await rawRequest(baseUrl, {
        method,
        path: '/__backend/rest/v1/rpc/anything',
        headers: { cookie: adminCookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      expect(response.status, method).toBe(403);
      expect(errorOf(response)).toBe('csrf_refused');
    }
    expect(reached).toEqual([]);
  });

  it("uses the service key for the same request from this server's own page", async () => {
    const response = await rawRequest(baseUrl, {
      path: '/__backend/rest/v1/items',
      headers: { cookie: adminCookie, origin: baseUrl, 'sec-fetch-site': 'same-origin' },
    });
    expect(response.status).toBe(200);
    expect(reached).toEqual([{ url: '/rest/v1/items', authorization: 'Bearer service' }]);
  });

  it('guards every state-changing route, including ones added after the guard', async () => {
    for (const url of ['/__admin-later/action', '/__admin/apply-sql', '/__auth/login', '/__pip/state']) {
      const response = await rawRequest(baseUrl, {
        method: 'POST',
        path: url,
        headers: { cookie: adminCookie, origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status, url).toBe(403);
      expect(errorOf(response), url).toBe('csrf_refused');
    }
    const fromTheApp = await rawRequest(baseUrl, {
      method: 'POST',
      path: '/__admin-later/action',
      headers: { cookie: adminCookie, origin: baseUrl, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(JSON.parse(fromTheApp.body)).toEqual({ ok: true, acted: true });
  });
});

describe('requests no ambient credential rides on', () => {
  it('forwards a cross-site request with a bearer token or none (the token is not ambient)', async () => {
    const bearer = await rawRequest(baseUrl, {
      method: 'POST',
      path: '/__backend/rest/v1/items',
      headers: {
        authorization: 'Bearer user-jwt',
        origin: 'https://elsewhere.example',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(bearer.status).toBe(200);
    expect(reached.at(-1)?.authorization).toBe('Bearer user-jwt');
  });

  it('keeps the phone remote open across origins (CORS, no credentials)', async () => {
    const preflight = await rawRequest(baseUrl, {
      method: 'OPTIONS',
      path: '/api/pip/action',
      headers: { origin: 'capacitor://localhost' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const action = await rawRequest(baseUrl, {
      method: 'POST',
      path: '/api/pip/action',
      headers: { origin: 'capacitor://localhost', 'content-type': 'application/json' },
      body: '{"action":"correct"}',
    });
    // Pairing is on by default: without a code the answer is a refusal the companion can read.
    expect(action.status).toBe(401);
    expect(action.headers['access-control-allow-origin']).toBe('*');
  });
});

// Security headers on every kind of response: the app shell, its files, /sw.js, JSON routes, errors,
// the admin pages, the event stream; the policies each route family sets; and storage objects served
// through the proxy, sandboxed and downloaded unless they are a raster image, for localbase and for
// a hosted backend alike.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newNonce,
  setContentSecurityPolicy,
  withScriptNonce,
  appPolicyDirectives,
} from '../src/security/security-headers.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { rawRequest } from './raw-http.ts';

const APP_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; " +
  "worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** What the stand-in storage serves at /storage/v1/object/public/files/<name>. */
const OBJECTS: Record<string, { type?: string; disposition?: string; body: string }> = {
  'page.html': { type: 'text/html; charset=utf-8', body: '<script>alert(document.cookie)</script>' },
  'drawing.svg': {
    type: 'image/svg+xml',
    body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  },
  'page.xhtml': { type: 'application/xhtml+xml', body: '<html xmlns="http://www.w3.org/1999/xhtml"/>' },
  'named.html': { type: 'text/html', disposition: 'inline; filename="named.html"', body: '<p>x</p>' },
  untyped: { body: '<script>1</script>' },
  'photo.png': { type: 'image/png', body: 'png bytes' },
  'photo.jpg': { type: 'IMAGE/JPEG', body: 'jpeg bytes' },
  'anim.gif': { type: 'image/gif', body: 'gif bytes' },
  'pic.webp': { type: 'image/webp; q=1', body: 'webp bytes' },
  'notes.pdf': { type: 'application/pdf', body: '%PDF' },
};

let upstream: http.Server;
let upstreamUrl: string;
let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '').split('/').pop() ?? '');
    const object = OBJECTS[name];
    if (!object) return response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    const headers: Record<string, string> = { 'content-security-policy': 'default-src *' };
    if (object.type) headers['content-type'] = object.type;
    if (object.disposition) headers['content-disposition'] = object.disposition;
    response.writeHead(200, headers).end(object.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startTestGateway({ backend: { url: upstreamUrl, anonKey: 'anon', serviceRoleKey: 'service' } });
  const assets = path.join(gateway.repoDir, 'web', 'dist', 'assets');
  await mkdir(assets, { recursive: true });
  await writeFile(path.join(assets, 'app.js'), 'console.log(1);\n');
  // A route family with its own policy, as the admin console will have (a nonce per response).
  gateway.app.get('/__nonce-page', async (_request, reply) => {
    const nonce = newNonce();
    setContentSecurityPolicy(reply, withScriptNonce(appPolicyDirectives(), nonce));
    return reply.type('text/html').send(`<script nonce="${nonce}">1</script>`);
  });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  upstream.close();
});

function expectBaseHeaders(headers: Record<string, unknown>, what: string) {
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['x-frame-options'], what).toBe('DENY');
  expect(headers['referrer-policy'], what).toBe('strict-origin-when-cross-origin');
}

describe('the app and its files', () => {
  it.each(['/', '/focus', '/community/groups/1', '/index.html', '/assets/app.js', '/sw.js'])(
    'GET %s carries the app policy',
    async (url) => {
      const response = await gateway.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expectBaseHeaders(response.headers, url);
      expect(response.headers['content-security-policy']).toBe(APP_POLICY);
    },
  );

  it('adds a hosted backend to img-src, and nothing else', async () => {
    const hosted = await startTestGateway({
      backend: { url: upstreamUrl, anonKey: 'a', serviceRoleKey: 's' },
      config: { backend: { url: 'https://abcd.supabase.co', anonKey: 'a', serviceRoleKey: 's' } },
    });
    try {
      const policy = (await hosted.app.inject({ url: '/' })).headers['content-security-policy'];
      expect(policy).toBe(
        APP_POLICY.replace("img-src 'self' data: blob:", "img-src 'self' data: blob: https://abcd.supabase.co"),
      );
    } finally {
      await hosted.close();
    }
  });
});

describe('JSON routes, errors and streams', () => {
  it.each([
    ['GET', '/api/version'],
    ['GET', '/api/health'],
    ['GET', '/api/pip/state'],
    ['GET', '/api/no-such-route'],
    ['GET', '/__admin'],
    ['POST', '/__admin/verify'],
    ['GET', '/assets/missing.js'],
    ['POST', '/__auth/login'],
    ['GET', '/__auth/bootstrap'],
    ['GET', '/__backend/rest/v1/items'],
  ])('%s %s carries the JSON policy', async (method, url) => {
    const response = await gateway.app.inject({ method: method as 'GET', url });
    expectBaseHeaders(response.headers, url);
    expect(response.headers['content-security-policy'], url).toBe(API_POLICY);
  });

  it('the event stream, which bypasses the reply hooks, carries them too', async () => {
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${baseUrl}/__pip/events`, resolve).on('error', reject);
    });
    response.destroy();
    expectBaseHeaders(response.headers, 'sse');
    expect(response.headers['content-security-policy']).toBe(API_POLICY);
  });

  it("replaces a backend's own permissive policy on anything the proxy relays, an edge function's HTML included", async () => {
    const response = await rawRequest(baseUrl, { path: '/__backend/functions/v1/page.html' });
    expect(response.body).toContain('<script>');
    expect(response.headers['content-security-policy']).toBe(API_POLICY);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a route family can set its own policy, with a fresh nonce per response', async () => {
    const first = await gateway.app.inject({ url: '/__nonce-page' });
    const second = await gateway.app.inject({ url: '/__nonce-page' });
    const nonceOf = (policy: unknown) => /'nonce-([^']+)'/.exec(String(policy))?.[1];
    expect(nonceOf(first.headers['content-security-policy'])).toBeDefined();
    expect(first.body).toContain(`nonce="${nonceOf(first.headers['content-security-policy'])}"`);
    expect(nonceOf(first.headers['content-security-policy'])).not.toBe(
      nonceOf(second.headers['content-security-policy']),
    );
    expectBaseHeaders(first.headers, 'nonce page');
  });
});

describe('storage objects through /__backend', () => {
  const objectUrl = (name: string) => `/__backend/storage/v1/object/public/files/${encodeURIComponent(name)}`;

  it.each(['page.html', 'drawing.svg', 'page.xhtml', 'untyped', 'notes.pdf'])(
    '%s is sandboxed, never sniffed, and downloaded',
    async (name) => {
      const response = await rawRequest(baseUrl, { path: objectUrl(name) });
      expect(response.status).toBe(200);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
      expect(response.headers['content-disposition']).toMatch(/^attachment/);
    },
  );

  it('keeps the file name when it turns an inline object into an attachment', async () => {
    const response = await rawRequest(baseUrl, { path: objectUrl('named.html') });
    expect(response.headers['content-disposition']).toBe('attachment; filename="named.html"');
  });

  it.each(['photo.png', 'photo.jpg', 'anim.gif', 'pic.webp'])(
    '%s, a raster image, is shown inline, still sandboxed and never sniffed',
    async (name) => {
      const response = await rawRequest(baseUrl, { path: objectUrl(name) });
      expect(response.headers['content-disposition']).toBeUndefined();
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    },
  );

  it('applies whatever the spelling of the storage path', async () => {
    for (const spelled of [
      '/__backend/STORAGE/v1/object/public/files/page.html',
      '/__backend/%73torage/v1/object/public/files/page.html',
      '/__backend/storage/v1/./object/public/files/page.html',
    ]) {
      const response = await rawRequest(baseUrl, { path: spelled });
      if (response.status === 200) expect(response.headers['content-disposition'], spelled).toMatch(/^attachment/);
      else expect(response.headers['content-type'], spelled).toMatch(/application\/json/);
    }
  });
});

// /companion/: the phone remote's build served from companion/ui/dist of the checkout, with the
// right types and cache rules, nothing outside the folder, and a plain answer when it is not built.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;
let distDir: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  distDir = path.join(gateway.repoDir, 'companion', 'ui', 'dist');
});
afterAll(() => gateway.close());

async function writeDist(): Promise<void> {
  await mkdir(path.join(distDir, 'assets'), { recursive: true });
  await mkdir(path.join(distDir, 'icons'), { recursive: true });
  await writeFile(path.join(distDir, 'index.html'), '<!doctype html><title>studyhall remote</title>');
  await writeFile(path.join(distDir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  await writeFile(path.join(distDir, 'manifest.webmanifest'), '{"name":"studyhall remote"}');
  await writeFile(path.join(distDir, 'assets', 'index-abc123.js'), 'console.log(1);');
  await writeFile(path.join(distDir, 'icons', 'icon-192.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(path.join(distDir, '.build-stamp.json'), '{"startedAt":1}\n');
}

describe('before the remote is built', () => {
  it('says so in plain words with 503', async () => {
    const response = await gateway.app.inject({ url: '/companion/' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain('npm run build:companion');
  });
});

describe('the built remote', () => {
  beforeAll(writeDist);

  it('redirects /companion to /companion/, keeping the query', async () => {
    const bare = await gateway.app.inject({ url: '/companion' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/companion/');
    const withQuery = await gateway.app.inject({ url: '/companion?from=qr' });
    expect(withQuery.headers.location).toBe('/companion/?from=qr');
  });

  it('serves the page, revalidated on every load', async () => {
    const page = await gateway.app.inject({ url: '/companion/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('studyhall remote');
  });

  it("runs the page and its worker under the app's policy, free to call any studyhall server it is pointed at", async () => {
    for (const url of ['/companion/', '/companion/sw.js']) {
      const policy = String((await gateway.app.inject({ url })).headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("manifest-src 'self'");
      expect(policy).toContain("connect-src 'self' http: https:");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-eval');
    }
    // Anything else keeps the default policy that allows nothing.
    const missing = await gateway.app.inject({ url: '/companion/nothing-here.js' });
    expect(missing.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('serves its service worker and manifest with their types, revalidated', async () => {
    const worker = await gateway.app.inject({ url: '/companion/sw.js' });
    expect(worker.headers['content-type']).toMatch(/javascript/);
    expect(worker.headers['cache-control']).toBe('no-cache');
    const manifest = await gateway.app.inject({ url: '/companion/manifest.webmanifest' });
    expect(manifest.headers['content-type']).toMatch(/^application\/manifest\+json/);
    expect(manifest.json()).toEqual({ name: 'studyhall remote' });
  });

  it('caches hashed assets for a year and icons for an hour', async () => {
    const asset = await gateway.app.inject({ url: '/companion/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await gateway.app.inject({ url: '/companion/icons/icon-192.png' });
    expect(icon.headers['content-type']).toBe('image/png');
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
  });

  it.each([
    '/companion/missing.js',
    '/companion/settings',
    '/companion/.build-stamp.json',
    '/companion/../package.json',
    '/companion/%2e%2e/package.json',
    '/companion/..%2fpackage.json',
    '/companion/assets/../../../package.json',
  ])('answers %s with the JSON 404, never a file from elsewhere', async (url) => {
    const response = await gateway.app.inject({ url });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 'not_found' });
  });
});

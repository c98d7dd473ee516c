// The web app under its Content-Security-Policy in Debian's Chromium: it runs (it shows its welcome
// screen, its service worker installs) with no violation report and no console error, while an
// inline script slipped into the page is blocked and reported. A stored HTML file served through the
// proxy is downloaded, never run on the app's origin.
import { cp } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { test } from '@playwright/test';
import { expect } from '#tools/e2e/expect.ts';
import { repoRoot } from '#db/paths.ts';
import { webPaths } from '../src/web-dist.ts';
import { ensureViteBuild, VITE_BUILDS } from '#tools/build/vite-build.mjs';
import { startTestGateway, type TestGateway } from './helpers.ts';

let storage: http.Server;
let gateway: TestGateway;
let baseUrl: string;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const dialogs: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  storage = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert("stored script ran")</script>');
  });
  await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    backend: { url: `http://127.0.0.1:${(storage.address() as AddressInfo).port}`, anonKey: 'a', serviceRoleKey: 's' },
  });
  // The real build of this checkout, not the fixture's stand-in page.
  await ensureViteBuild(VITE_BUILDS.web);
  await cp(webPaths(repoRoot).distDir, webPaths(gateway.repoDir).distDir, { recursive: true, force: true });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  await page.addInitScript(() => {
    const violations: Array<{ directive: string; blocked: string }> = [];
    Object.assign(window, { cspViolations: violations });
    document.addEventListener('securitypolicyviolation', (event) =>
      violations.push({ directive: event.violatedDirective, blocked: event.blockedURI }),
    );
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});

test.afterAll(async () => {
  await context?.close();
  await gateway?.close();
  storage?.close();
});

const violations = () =>
  page.evaluate(
    () => (window as unknown as { cspViolations: Array<{ directive: string; blocked: string }> }).cspViolations,
  );

test.describe('the web app under its CSP', () => {
  test('runs with no violation report and no console error', async () => {
    const response = await page.goto(baseUrl);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${baseUrl}/`);
    // Reload under the service worker: the shell still runs, still clean.
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  test('blocks and reports an inline script slipped into the page', async () => {
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
    });
    await expect
      .poll(violations)
      .toEqual([expect.objectContaining({ directive: expect.stringMatching(/^script-src/), blocked: 'inline' })]);
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    consoleErrors.length = 0;
  });

  test('downloads a stored HTML file instead of running it on the app origin', async () => {
    const downloadPage = await context.newPage();
    const download = downloadPage.waitForEvent('download');
    await downloadPage.goto(`${baseUrl}/__backend/storage/v1/object/public/avatars/u/evil.html`).catch(() => {});
    expect((await download).suggestedFilename()).toBe('evil.html');
    expect(dialogs).toEqual([]);
    await downloadPage.close();
  });
});

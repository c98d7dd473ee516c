// The app at its HTTPS LAN address in Debian's Chromium, as a student's browser that installed the
// server's CA meets it. The server runs as `npm start` runs it (gateway/src/main.ts) with HTTPS on a
// free port; Chromium reaches it as https://studyhall.local (mapped to 127.0.0.1 by
// --host-resolver-rules; the certificate names studyhall.local) and trusts the local CA by its key
// (--ignore-certificate-errors-spki-list with the CA's SPKI hash: the chain is the CA's, nothing
// else is accepted). There: the service worker controls the page and an offline reload still shows
// the app; notifications can be granted; a Web Push alert the page schedules arrives at a loopback
// push service; the phone remote's manifest is served and its service worker controls /companion/.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushReceiver, type PushReceiver, type ReceiverSubscription } from '#gateway/test/push-receiver.ts';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { x509 } from '#gateway/src/https/x509.ts';
import { ensureViteBuild, VITE_BUILDS } from '#tools/build/vite-build.mjs';
import { freePort } from '#tools/testing/free-port.ts';
import { accountSession } from './app-driver.ts';
import { assertChromium } from './browser.ts';
import { startStudyhall, type StudyhallProcess } from './companion/studyhall-process.ts';

const HOST_NAME = 'studyhall.local';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let studyhall: StudyhallProcess;
let browser: Browser;
let context: BrowserContext;
let plainUrl: string;
let secureUrl: string;
let receiver: PushReceiver;
let device: ReceiverSubscription;

beforeAll(async () => {
  temp = await makeTempDir('https-e2e');
  await ensureViteBuild(VITE_BUILDS.web);
  await ensureViteBuild(VITE_BUILDS.companion);
  const port = await freePort();
  const httpsPort = await freePort();
  plainUrl = `http://127.0.0.1:${port}`;
  secureUrl = `https://${HOST_NAME}:${httpsPort}`;
  studyhall = startStudyhall({
    PORT: String(port),
    HOST: '127.0.0.1',
    HTTPS_PORT: String(httpsPort),
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp.dir, 'data'),
    LOG_DIR: path.join(temp.dir, 'logs'),
    WEB_PUSH_ALLOW_HTTP: 'true',
  });
  await studyhall.ready;
  expect(studyhall.output()).toContain(`studyhall: https   https://127.0.0.1:${httpsPort}`);

  // The CA as a device gets it from /__ca; Chromium trusts chains that hold its key.
  const der = Buffer.from(await (await fetch(`${plainUrl}/__ca/studyhall-ca.crt`)).arrayBuffer());
  const spki = Buffer.from(new x509.X509Certificate(der).publicKey.rawData);
  const spkiHash = createHash('sha256').update(spki).digest('base64');
  browser = await chromium.launch({
    executablePath: assertChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1`,
      `--ignore-certificate-errors-spki-list=${spkiHash}`,
    ],
  });
  context = await browser.newContext();

  const served = (await (await fetch(`${plainUrl}/api/push/vapid-public-key`)).json()) as { public_key: string };
  receiver = await startPushReceiver({ expectedVapidKey: served.public_key });
  device = receiver.subscribe();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await studyhall?.stop();
  await temp?.remove();
});

describe('the app at its HTTPS LAN address, in a browser that trusts the CA', () => {
  it('is a secure context whose service worker controls the page', async () => {
    const page = await context.newPage();
    const response = await page.goto(`${secureUrl}/`);
    expect(response?.status()).toBe(200);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${secureUrl}/`);
    await page.reload();
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${secureUrl}/sw.js`);
    await page.close();
  });

  it('shows the app on a reload while offline', async () => {
    const page = await context.newPage();
    await page.goto(`${secureUrl}/`);
    await page.evaluate(async () => navigator.serviceWorker.ready);
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
    await context.setOffline(true);
    try {
      await page.reload();
      await expect.poll(() => page.textContent('h1'), { timeout: 15_000 }).toBe('Welcome to studyhall');
    } finally {
      await context.setOffline(false);
      await page.close();
    }
  });

  it('can be granted notifications', async () => {
    await context.grantPermissions(['notifications'], { origin: secureUrl });
    const page = await context.newPage();
    await page.goto(`${secureUrl}/`);
    expect(await page.evaluate(() => Notification.permission)).toBe('granted');
    await page.close();
  });

  it('gets a Web Push alert that the page schedules at the loopback push service', async () => {
    const session = await accountSession(plainUrl, 'https-ada@example.com', 'https-ada-password-1');
    const page = await context.newPage();
    await page.goto(`${secureUrl}/`);
    // From the page at the HTTPS address: register the device, then ask for a phase-end alert in 2 s.
    const statuses = await page.evaluate(
      async ({ token, accessToken }) => {
        const { anon_key: anonKey } = (await (await fetch('/api/client-config')).json()) as { anon_key: string };
        const headers = { 'content-type': 'application/json', apikey: anonKey, authorization: `Bearer ${accessToken}` };
        const registered = await fetch('/__backend/rest/v1/rpc/community_register_device_token', {
          method: 'POST',
          headers,
          body: JSON.stringify({ p_token: token }),
        });
        const scheduled = await fetch('/__backend/rest/v1/rpc/community_schedule_phase_end', {
          method: 'POST',
          headers,
          body: JSON.stringify({ p_phase: 'focus', p_ends_at: new Date(Date.now() + 2000).toISOString() }),
        });
        return [registered.status, scheduled.status];
      },
      { token: device.token, accessToken: session.access_token },
    );
    expect(statuses.every((status) => status < 300)).toBe(true);
    const [push] = await receiver.waitForReceived(1, 20_000, device.id);
    expect(push!.payload).toMatchObject({ type: 'phase_end', phase: 'focus' });
    await page.close();
  }, 60_000);

  it('installs the phone remote: its manifest is served and its service worker controls /companion/', async () => {
    const page = await context.newPage();
    await page.goto(`${secureUrl}/companion/`);
    const manifestHref = await page.getAttribute('link[rel="manifest"]', 'href');
    expect(manifestHref).toBeTruthy();
    const manifest = await page.evaluate(async (href) => {
      const response = await fetch(href!);
      return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
    }, manifestHref);
    expect(manifest.status).toBe(200);
    expect(manifest.type).toMatch(/manifest\+json|application\/json/);
    expect(manifest.body).toMatchObject({ name: expect.any(String), icons: expect.any(Array) });
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${secureUrl}/companion/`);
    await page.reload();
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
    await page.close();
  });

  it('hands out the CA at /__ca over plain HTTP, where the page finds this browser trusts it', async () => {
    const page = await context.newPage();
    await page.goto(`${plainUrl.replace('127.0.0.1', HOST_NAME)}/__ca`);
    await expect
      .poll(() => page.locator('#trust-status').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('trusted');
    expect(await page.getByRole('link', { name: `Open ${secureUrl}` }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.cookie)).toContain('studyhall_https=trusted');
    await page.screenshot({ path: path.join(temp.dir, 'ca-page.png'), fullPage: true });
    expect((await readFile(path.join(temp.dir, 'ca-page.png'))).length).toBeGreaterThan(1000);
    await page.close();
  });
});

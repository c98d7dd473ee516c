// The app at its HTTPS LAN address in Debian's Chromium, as a student's browser that installed the
// server's CA meets it. The server runs as `npm start` runs it (gateway/src/main.ts) with HTTPS on a
// free port; Chromium reaches it as https://studyhall.local (mapped to 127.0.0.1 by
// --host-resolver-rules; the certificate names studyhall.local) and trusts the local CA by its key
// (--ignore-certificate-errors-spki-list with the CA's SPKI hash: the chain is the CA's, nothing
// else is accepted). There: the service worker controls the page and an offline reload still shows
// the app; notifications can be granted; a Web Push alert the page schedules arrives at a loopback
// push service, and so does the start alert of a buddy who starts focusing; the phone remote's
// manifest is served and its service worker controls /companion/.
//
// PUBLIC_URL names that HTTPS address, so a teacher at the loopback address (http://127.0.0.1)
// hands it out: the invite links she copies, the pairing QR code her focus page shows and the
// recovery mail she asks for all lead there, and a student's browser opens each. Screenshots of the
// screens that show those links, at 390 and 1280 px, go to .tmp/https-lan-screenshots.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import { startPushReceiver, type PushReceiver, type ReceiverSubscription } from '#gateway/test/push-receiver.ts';
import { x509 } from '#gateway/src/https/x509.ts';
import { freePort } from '#tools/testing/free-port.ts';
import { accountSession, signedInContext, VIEWPORTS, type RunningStudyhall } from './app-driver.ts';
import { launchChromium, mapHostToLoopback } from './browser.ts';
import { asStudent, type Student } from './community-driver.ts';
import { openRoute, shareWhatIStudy } from './community-fixture.ts';
import { readQrCode } from './companion/focus-page.ts';
import { openPhone } from './companion/phone.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { fakePushSubscriptions } from './push-driver.ts';

const HOST_NAME = 'studyhall.local';
const SCREENSHOT_DIR = path.join(repoRoot, '.tmp', 'https-lan-screenshots');

const test = studyhallTest({
  env: async () => {
    const httpsPort = await freePort();
    return {
      HTTPS_PORT: String(httpsPort),
      // The students' address: what links handed out from this computer name.
      PUBLIC_URL: `https://${HOST_NAME}:${httpsPort}`,
      WEB_PUSH_ALLOW_HTTP: 'true',
    };
  },
});
test.describe.configure({ mode: 'serial' });

let studyhall: RunningStudyhall;
/** Chromium that maps HOST_NAME to 127.0.0.1 and trusts the server's CA, known once the server runs. */
let browser: Browser;
let context: BrowserContext;
let plainUrl: string;
let secureUrl: string;
let receiver: PushReceiver;
let device: ReceiverSubscription;
let localbaseUrl: string;
/** Ada teaches from this computer (the loopback address); Bo is a student on his own device. */
let ada: Student;
let bo: Student;
const contexts: BrowserContext[] = [];

test.beforeAll(async ({ studyhall: server, ada: teacher, bo: student }) => {
  studyhall = server;
  plainUrl = studyhall.url;
  const httpsPort = studyhall.env.HTTPS_PORT;
  secureUrl = studyhall.env.PUBLIC_URL!;
  localbaseUrl = studyhall.localbaseUrl;
  expect(studyhall.output()).toContain(`studyhall: https   https://127.0.0.1:${httpsPort}`);

  // The CA as a device gets it from /__ca; Chromium trusts chains that hold its key.
  const der = Buffer.from(await (await fetch(`${plainUrl}/__ca/studyhall-ca.crt`)).arrayBuffer());
  const spki = Buffer.from(new x509.X509Certificate(der).publicKey.rawData);
  const spkiHash = createHash('sha256').update(spki).digest('base64');
  browser = await launchChromium([mapHostToLoopback(HOST_NAME), `--ignore-certificate-errors-spki-list=${spkiHash}`]);
  context = await browser.newContext();

  const served = (await (await fetch(`${plainUrl}/api/push/vapid-public-key`)).json()) as { public_key: string };
  receiver = await startPushReceiver({ expectedVapidKey: served.public_key });
  device = receiver.subscribe();
  ada = teacher;
  bo = student;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
});

test.afterAll(async () => {
  for (const open of contexts) await open.close().catch(() => undefined);
  await browser?.close();
  await receiver?.close();
});

test.describe('the app at its HTTPS LAN address, in a browser that trusts the CA', () => {
  test('is a secure context whose service worker controls the page', async () => {
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

  test('shows the app on a reload while offline', async () => {
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

  test('can be granted notifications', async () => {
    await context.grantPermissions(['notifications'], { origin: secureUrl });
    const page = await context.newPage();
    await page.goto(`${secureUrl}/`);
    expect(await page.evaluate(() => Notification.permission)).toBe('granted');
    await page.close();
  });

  test('gets a Web Push alert that the page schedules at the loopback push service', async () => {
    test.setTimeout(60_000);
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
  });

  test('installs the phone remote: its manifest is served and its service worker controls /companion/', async () => {
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

  test('hands out the CA at /__ca over plain HTTP, where the page finds this browser trusts it', async () => {
    const page = await context.newPage();
    await page.goto(`${plainUrl.replace('127.0.0.1', HOST_NAME)}/__ca`);
    await expect
      .poll(() => page.locator('#trust-status').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('trusted');
    expect(await page.getByRole('link', { name: `Open ${secureUrl}` }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.cookie)).toContain('studyhall_https=trusted');
    const shot = test.info().outputPath('ca-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await readFile(shot)).length).toBeGreaterThan(1000);
    await page.close();
  });
});

/** A student's browser, signed in on every origin of the app, with a 15 s default timeout. */
async function studentPage(who: Student, options: Parameters<typeof signedInContext>[2] = {}): Promise<Page> {
  const context = await signedInContext(browser, who.session, { viewport: VIEWPORTS.desktop, ...options });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** `part` of the page at 390 and 1280 px, for a person to look at. */
async function screenshots(page: Page, name: string, part: Locator): Promise<void> {
  for (const [look, viewport] of [
    ['390', VIEWPORTS.phone],
    ['1280', VIEWPORTS.desktop],
  ] as const) {
    await page.setViewportSize(viewport);
    await part.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${look}.png`) });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

test.describe('what a teacher at the loopback address hands out leads to the HTTPS address', () => {
  test('is a group invite link that Bo opens there and joins through', async () => {
    test.setTimeout(90_000);
    const page = await studentPage(ada);
    await openRoute(page, plainUrl, '/community');
    await page.getByRole('button', { name: 'Create a group' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a group' });
    await dialog.getByLabel('Name').fill('Evening Chemistry');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
    const groupId = page.url().split('/').pop() ?? '';
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = page.getByRole('textbox', { name: 'Invite link' }).first();
    await expect.poll(() => link.inputValue(), { timeout: 5_000 }).toMatch(/\/invite\/[0-9a-f]{36}$/);
    const inviteUrl = await link.inputValue();
    expect(inviteUrl.startsWith(`${secureUrl}/invite/`)).toBe(true);
    await screenshots(page, 'group-invite-link', page.locator('#invites'));

    const boPage = await studentPage(bo);
    await boPage.goto(inviteUrl);
    await boPage.getByRole('button', { name: 'Join Evening Chemistry' }).click();
    await boPage.waitForURL(`${secureUrl}/groups/${groupId}`);
    // The group page loads its data after the join's navigation: a page load and two reads, not a
    // promise of 1 s.
    await expect
      .poll(() => boPage.getByRole('heading', { level: 1 }).textContent(), { timeout: 5_000 })
      .toBe('Evening Chemistry');
  });

  test('is a buddy invite link at the HTTPS address', async () => {
    test.setTimeout(60_000);
    const page = await studentPage(ada);
    await openRoute(page, plainUrl, '/buddies');
    await page.getByRole('button', { name: 'Create a buddy invite link' }).click();
    const link = page.getByRole('textbox', { name: 'Your buddy invite link' });
    // An RPC that makes the invite, then the address from the client config: no promise of 1 s.
    await expect
      .poll(() => link.inputValue(), { timeout: 5_000 })
      .toMatch(new RegExp(`^${secureUrl}/invite/[0-9a-f]{36}$`));
  });

  test('is a pairing QR code of the remote at the HTTPS address, which pairs a phone that scans it', async () => {
    test.setTimeout(90_000);
    const page = await studentPage(ada);
    // The test server listens on loopback, so it lists no plain-HTTP LAN address for the phone; the
    // teacher's browser is answered with the plain-HTTP address at the mapped name, as a server on
    // every interface lists its LAN address.
    const plainLan = `http://${HOST_NAME}:${new URL(plainUrl).port}`;
    await page.context().route(`${plainUrl}/api/client-config`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), companion_urls: [plainLan] } });
    });
    await openRoute(page, plainUrl, '/focus');
    await page.getByRole('button', { name: /^Phone remote/ }).click();
    const panel = page.getByRole('region', { name: 'Phone remote' });
    await panel.getByRole('img', { name: /^QR code/ }).waitFor();
    const code = ((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '');
    const scanned = await readQrCode(page);
    expect(scanned).toBe(`${secureUrl}/companion/#code=${code}`);
    expect(await panel.textContent()).not.toContain('127.0.0.1');
    // A phone that does not trust the certificate yet is told where to get it, at the plain-HTTP address.
    await panel.getByText(`A phone that warns about the certificate installs it once from ${plainLan}/__ca.`).waitFor();
    await screenshots(page, 'phone-remote-panel', panel);

    const phone = await openPhone(browser, scanned, 'light', { addCsp: false });
    contexts.push(phone.context);
    await expect.poll(() => panel.getByText('Phone connected').isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await phone.problems()).toEqual([]);
  });

  test('is a recovery mail whose link and return address are the HTTPS address, where it signs her in', async () => {
    test.setTimeout(60_000);
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${plainUrl}/forgot-password`);
    await page.getByLabel('E-mail').fill(ada.email);
    // The embedded backend sends no e-mail: the link waits in its outbox, and the button says so.
    await page.getByRole('button', { name: 'Ask for a reset link' }).click();
    const link = await nextMailLink(ada.email);
    expect(link.startsWith(`${secureUrl}/__backend/auth/v1/verify?`)).toBe(true);
    expect(new URL(link).searchParams.get('redirect_to')).toBe(`${secureUrl}/reset-password`);

    // Opened on another device of hers, the link returns to the page there: the redirect was accepted.
    const other = await browser.newContext({ viewport: VIEWPORTS.phone });
    contexts.push(other);
    const phone = await other.newPage();
    await phone.goto(link);
    await phone.getByRole('heading', { name: 'Set a new password' }).waitFor({ timeout: 15_000 });
    expect(new URL(phone.url()).origin).toBe(secureUrl);
  });
});

/** The link of the newest mail to `to`, read through localbase's management API. */
async function nextMailLink(to: string): Promise<string> {
  const keys = await studyhall.keys();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const answer = await fetch(`${localbaseUrl}/v1/projects/local/auth/outbox`, {
      headers: { authorization: `Bearer ${keys.accessToken}` },
    });
    const { messages } = (await answer.json()) as { messages: { to: string; link: string | null }[] };
    const link = messages.find((message) => message.to === to)?.link;
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no mail to ${to}`);
}

test.describe('a start alert at the HTTPS address', () => {
  test("reaches Bo's device at the loopback push service when his buddy Ada starts focusing", async () => {
    test.setTimeout(120_000);
    const connection = await asStudent<string>(plainUrl, ada, '/rest/v1/rpc/community_request_buddy', {
      body: { p_handle: bo.handle },
    });
    await asStudent(plainUrl, bo, '/rest/v1/rpc/community_respond_buddy', {
      body: { p_connection_id: connection, p_accept: true },
    });

    // Bo allows notifications at the HTTPS address and subscribes this device. Headless Chromium has
    // no push service to subscribe with, so PushManager answers with the loopback receiver's
    // subscription (a real P-256 key and auth secret); the rest is the app's and the server's own.
    const bosDevice = receiver.subscribe();
    const boPage = await studentPage(bo);
    await boPage.context().grantPermissions(['notifications'], { origin: secureUrl });
    await fakePushSubscriptions(boPage.context(), bosDevice.token);
    await openRoute(boPage, secureUrl, '/buddies');
    expect(await boPage.evaluate(() => window.isSecureContext)).toBe(true);
    await boPage.getByRole('button', { name: 'Allow notifications on this device' }).click();
    await boPage.getByText('This device receives start alerts.').waitFor();
    const bell = boPage.getByRole('button', { name: 'Alert me when Ada starts studying' });
    await bell.click();
    await expect.poll(() => bell.getAttribute('aria-pressed')).toBe('true');

    // Ada shares what she studies and starts focusing, at the HTTPS address too.
    const adaPage = await studentPage(ada);
    await openRoute(adaPage, secureUrl, '/settings/privacy');
    await shareWhatIStudy(adaPage);
    await openRoute(adaPage, secureUrl, '/focus');
    await adaPage.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await adaPage.getByLabel('New subject').fill('Organic chemistry');
    await adaPage.getByRole('button', { name: 'Add', exact: true }).click();
    await adaPage.getByRole('button', { name: 'Start' }).click();

    const [push] = await receiver.waitForReceived(1, 20_000, bosDevice.id);
    expect(push!.payload).toEqual({
      type: 'start_alert',
      actor: { id: ada.id, handle: 'ada' },
      target_type: 'buddy',
      target_id: ada.id,
      started_at: expect.any(String),
      subject: 'Organic chemistry',
      url: '/buddies',
    });
    expect(receiver.rejected).toEqual([]);
  });
});

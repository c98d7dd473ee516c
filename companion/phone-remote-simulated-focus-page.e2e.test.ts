// The phone remote against a real `npm start`, in Chromium with a phone viewport (390 x 844, touch).
// The focus page is SIMULATED (companion/e2e/simulated-focus-page.ts): a tab that does what the web
// app's /focus page does for the relay. To run this against the real page, give `openFocusPage`
// below the same FocusPage interface over /focus; nothing else in this file needs to change.
//
// It shows: the remote shows the page's running timer; a tap on Correct moves the page's counter
// within 1 s; with the server stopped the offline badge shows within the backoff cap (5 s for a
// loopback server) and clears after a restart with the time right; with PIP_PAIRING=on a phone
// without the code is refused, with it works, and two pages with two phones each see only their own.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRemaining } from './core/render-tick.ts';
import { BACKOFF_CAP_LOOPBACK_MS } from './core/poll-schedule.ts';
import { openPhone, type Phone } from './e2e/phone.ts';
import { openSimulatedFocusPage, type FocusPage, type FocusPageOptions } from './e2e/simulated-focus-page.ts';
import { freePort, startStudyhall, type StudyhallProcess } from './e2e/studyhall-process.ts';
import { makeTempDir } from '../gateway/test/helpers.ts';
import { launchChromium } from '../tools/e2e/browser.ts';
import { repoRoot } from '../tools/db/paths.ts';

const openFocusPage: (context: BrowserContext, appUrl: string, options: FocusPageOptions) => Promise<FocusPage> = openSimulatedFocusPage;

const SCREENSHOT_DIR = path.join(repoRoot, '.tmp', 'companion-screenshots');
const ACTIONS = ['Correct', 'Incorrect', 'Skip', 'Undo', 'Target'];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let env: Record<string, string>;
let appUrl: string;
let studyhall: StudyhallProcess;
let browser: Browser;
let desktop: BrowserContext;
const phones: Phone[] = [];

beforeAll(async () => {
  temp = await makeTempDir('companion-e2e');
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp.dir, 'data'),
    LOG_DIR: path.join(temp.dir, 'logs'),
  };
  studyhall = startStudyhall(env);
  await studyhall.ready;
  browser = await launchChromium();
  desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await mkdir(SCREENSHOT_DIR, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await studyhall?.stop();
  await temp?.remove();
});

/** The remote's time as shown, in seconds. */
async function shownSeconds(page: Page): Promise<number> {
  const text = (await page.locator('.time').textContent()) ?? '';
  const parts = text.trim().split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

function expectedSeconds(completionAtMs: number): number {
  return Math.ceil(Math.max(0, completionAtMs - Date.now()) / 1000);
}

async function expectNoProblems(phone: Phone): Promise<void> {
  expect(await phone.problems()).toEqual([]);
}

describe('the remote with a focus page (pairing off)', () => {
  let focus: FocusPage;
  let phone: Phone;

  beforeAll(async () => {
    focus = await openFocusPage(desktop, appUrl, { subject: 'Biology', durationMs: 25 * 60_000, pairing: false });
    phone = await openPhone(browser, `${appUrl}/companion/`);
    phones.push(phone);
  });

  it('shows the running timer of the focus page: phase, time, subject', async () => {
    const { page } = phone;
    await expect.poll(() => page.locator('.phase').textContent(), { timeout: 5_000 }).toBe('Focus');
    await expect.poll(() => page.locator('.subject-name').textContent()).toBe('Biology');
    const difference = Math.abs((await shownSeconds(page)) - expectedSeconds(focus.completionAtMs));
    expect(difference).toBeLessThanOrEqual(1);
    // The time keeps running from completionAtMs without waiting for a poll.
    const before = await shownSeconds(page);
    await page.waitForTimeout(1_100);
    expect(await shownSeconds(page)).toBeLessThan(before);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('has five large buttons named Correct, Incorrect, Skip, Undo and Target', async () => {
    for (const name of ACTIONS) {
      const button = phone.page.getByRole('button', { name, exact: true });
      await expect.poll(() => button.count()).toBe(1);
      const box = await button.boundingBox();
      expect(box?.width).toBeGreaterThanOrEqual(44);
      expect(box?.height).toBeGreaterThanOrEqual(44);
    }
  });

  it("moves the focus page's counter within 1 s of a tap on Correct, and says it was delivered", async () => {
    const before = (await focus.counters()).correct;
    const tapped = Date.now();
    await phone.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await focus.waitForCounter('correct', before + 1, 1_000);
    expect(Date.now() - tapped).toBeLessThan(1_000);
    await expect.poll(() => phone.page.locator('.notice').textContent()).toBe('Sent to the focus page.');
    // The page's new count comes back to the phone with the next poll.
    await expect.poll(() => phone.page.locator('#count-correct').textContent(), { timeout: 3_000 }).toBe(String(before + 1));
  });

  it('sends Incorrect, Skip, Undo and a target the same way', async () => {
    const start = await focus.counters();
    await phone.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await focus.waitForCounter('incorrect', start.incorrect + 1, 2_000);
    await phone.page.getByRole('button', { name: 'Skip', exact: true }).tap();
    await focus.waitForCounter('skipped', start.skipped + 1, 2_000);
    await phone.page.getByRole('button', { name: 'Undo', exact: true }).tap();
    await focus.waitForCounter('skipped', start.skipped, 2_000);
    await phone.page.getByRole('button', { name: 'Target', exact: true }).tap();
    await phone.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-target-light.png') });
    await phone.page.getByRole('textbox', { name: 'Target attempts' }).fill('35');
    await phone.page.getByRole('button', { name: 'Set target' }).tap();
    await expect.poll(async () => (await focus.counters()).target, { timeout: 2_000 }).toBe('35');
    await expect.poll(() => phone.page.locator('#target-value').textContent(), { timeout: 3_000 }).toBe('35');
  });

  it('opens the settings sheet and tests the connection', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Settings' }).tap();
    await expect.poll(() => page.getByRole('textbox', { name: 'Server' }).inputValue()).toBe(appUrl);
    await page.getByRole('button', { name: 'Test connection' }).tap();
    await expect.poll(() => page.locator('.test-result').textContent(), { timeout: 5_000 }).toMatch(/^Connected in \d+ ms: a session is running\.$/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    // A browser may only reach the server that served it: another one is refused with a reason.
    await page.getByRole('textbox', { name: 'Server' }).fill('http://192.168.1.20:3000');
    await page.getByRole('button', { name: 'Save' }).tap();
    await expect.poll(() => page.locator('#server-url-error').textContent()).toMatch(/only reach the server it was opened from/);
    await page.getByRole('button', { name: 'Done' }).tap();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  it('shows the offline badge within the backoff cap when the server stops, and clears it with the right time after a restart', async () => {
    const { page } = phone;
    expect(await page.locator('.offline-badge').count()).toBe(0);
    const stoppedAt = Date.now();
    expect(await studyhall.stop()).toBe(0);
    await page.locator('.offline-badge').waitFor({ state: 'visible', timeout: BACKOFF_CAP_LOOPBACK_MS });
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(BACKOFF_CAP_LOOPBACK_MS);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-offline-light.png') });
    // While offline the time still runs from the last completionAtMs.
    expect(Math.abs((await shownSeconds(page)) - expectedSeconds(focus.completionAtMs))).toBeLessThanOrEqual(1);

    studyhall = startStudyhall(env);
    await studyhall.ready;
    const upAt = Date.now();
    await page.locator('.offline-badge').waitFor({ state: 'detached', timeout: BACKOFF_CAP_LOOPBACK_MS + 1_000 });
    expect(Date.now() - upAt).toBeLessThanOrEqual(BACKOFF_CAP_LOOPBACK_MS + 1_000);
    // The page re-posts its snapshot when its event stream reconnects; the time is the page's.
    await expect.poll(() => page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('Biology');
    expect(Math.abs((await shownSeconds(page)) - expectedSeconds(focus.completionAtMs))).toBeLessThanOrEqual(1);
    expect(formatRemaining(focus.completionAtMs - Date.now())).toMatch(/^\d\d:\d\d$/);
  }, 120_000);

  it('ran under the Content-Security-Policy without a violation or an error', async () => {
    await expectNoProblems(phone);
  });
});

describe("the Android overlay's page", () => {
  it('watches while no session runs, shows itself when one starts and hides when it ends', async () => {
    // The calls OverlayService.java receives from the page, recorded by a stand-in bridge.
    const context = await browser.newContext({ viewport: { width: 208, height: 64 } });
    await context.addInitScript(() => {
      const calls: string[] = [];
      Object.assign(window, {
        __overlayCalls: calls,
        StudyhallOverlay: { setVisible: (visible: boolean) => calls.push(`visible ${visible}`), openApp: () => calls.push('openApp'), close: () => calls.push('close') },
      });
    });
    const focus = await openFocusPage(desktop, appUrl, { subject: 'Overlay', durationMs: 10 * 60_000, pairing: false });
    try {
      const page = await context.newPage();
      const calls = () => page.evaluate(() => (window as unknown as { __overlayCalls: string[] }).__overlayCalls);
      await page.goto(`${appUrl}/companion/overlay.html?server=${encodeURIComponent(appUrl)}&code=`);
      // The first look is immediate: hidden while watching, then shown for the running session.
      await expect.poll(calls, { timeout: 5_000 }).toEqual(['visible false', 'visible true']);
      await expect.poll(() => page.locator('.overlay-time').textContent(), { timeout: 3_000 }).toMatch(/^(10:00|09:\d\d)$/);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'android-overlay.png') });
      await focus.endSession();
      await expect.poll(calls, { timeout: 5_000 }).toEqual(['visible false', 'visible true', 'visible false']);
      await page.locator('.overlay-face').click();
      expect((await calls()).at(-1)).toBe('openApp');
    } finally {
      await focus.page.close();
      await context.close();
    }
  }, 60_000);
});

describe('the installable remote', () => {
  it('links its manifest and registers its own service worker, scoped to /companion/', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      await page.goto(`${appUrl}/companion/`);
      const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
      const manifest = await page.evaluate(async (href) => (await fetch(href ?? '')).json(), manifestHref);
      expect(manifest).toMatchObject({ start_url: './', scope: './', display: 'standalone' });
      expect(manifest.icons.map((icon: { sizes: string }) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
      for (const icon of manifest.icons as Array<{ src: string }>) {
        expect((await page.request.get(`${appUrl}/companion/${icon.src}`)).headers()['content-type']).toBe('image/png');
      }
      const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      expect(scope).toBe(`${appUrl}/companion/`);
      // Offline, the worker still opens the remote from its cache (and the remote shows its badge).
      await context.setOffline(true);
      await page.reload();
      await page.locator('.offline-badge').waitFor({ state: 'visible', timeout: 10_000 });
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('PIP_PAIRING=on', () => {
  let biology: FocusPage;
  let history: FocusPage;
  let phoneA: Phone;
  let phoneB: Phone;

  beforeAll(async () => {
    expect(await studyhall.stop()).toBe(0);
    studyhall = startStudyhall({ ...env, PIP_PAIRING: 'on' });
    await studyhall.ready;
    const second = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    biology = await openFocusPage(desktop, appUrl, { subject: 'Biology', durationMs: 50 * 60_000, pairing: true });
    history = await openFocusPage(second, appUrl, { subject: 'History', durationMs: 15 * 60_000, pairing: true });
    phoneA = await openPhone(browser, `${appUrl}/companion/`);
    phones.push(phoneA);
  }, 120_000);

  it('refuses a phone without the code, and asks for it', async () => {
    const status = await phoneA.page.evaluate(async () => (await fetch('/api/pip/state')).status);
    expect(status).toBe(401);
    await phoneA.page.getByRole('heading', { name: 'Pair with your focus page' }).waitFor({ timeout: 5_000 });
    for (const name of ['Correct', 'Incorrect']) expect(await phoneA.page.getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
    await phoneA.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'pairing-light.png') });
  });

  it('works with the code, and each of two phones sees only its own page', async () => {
    expect(biology.code).toMatch(/^[A-Z2-9]{6}$/);
    expect(history.code).not.toBe(biology.code);
    const withCode = await phoneA.page.evaluate(async (code) => (await fetch('/api/pip/state', { headers: { 'x-pip-code': code } })).status, biology.code ?? '');
    expect(withCode).toBe(200);

    await phoneA.page.getByRole('textbox', { name: 'Pairing code' }).fill((biology.code ?? '').toLowerCase());
    await phoneA.page.getByRole('button', { name: 'Pair' }).tap();
    // The focus page's QR code carries the code in the link: the second phone pairs by opening it.
    phoneB = await openPhone(browser, `${appUrl}/companion/#code=${history.code}`, 'dark');
    phones.push(phoneB);
    expect(new URL(phoneB.page.url()).hash).toBe('');

    await expect.poll(() => phoneA.page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('Biology');
    await expect.poll(() => phoneB.page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('History');
    expect(Math.abs((await shownSeconds(phoneA.page)) - expectedSeconds(biology.completionAtMs))).toBeLessThanOrEqual(1);
    expect(Math.abs((await shownSeconds(phoneB.page)) - expectedSeconds(history.completionAtMs))).toBeLessThanOrEqual(1);
    await phoneB.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-paired-dark.png') });

    await phoneA.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await biology.waitForCounter('correct', 1, 1_000);
    await phoneB.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await history.waitForCounter('incorrect', 1, 1_000);
    await phoneB.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await history.waitForCounter('incorrect', 2, 1_000);

    expect(await biology.counters()).toMatchObject({ correct: 1, incorrect: 0, skipped: 0 });
    expect(await history.counters()).toMatchObject({ correct: 0, incorrect: 2, skipped: 0 });
    await expect.poll(() => phoneA.page.locator('#count-incorrect').textContent(), { timeout: 3_000 }).toBe('0');
    await expect.poll(() => phoneB.page.locator('#count-incorrect').textContent(), { timeout: 3_000 }).toBe('2');
    await expect.poll(() => phoneB.page.locator('#count-correct').textContent()).toBe('0');
  });

  it('ran both phones under the Content-Security-Policy without a violation or an error', async () => {
    for (const phone of [phoneA, phoneB]) await expectNoProblems(phone);
  });

  it('stops cleanly', async () => {
    expect(await studyhall.stop()).toBe(0);
  }, 30_000);
});

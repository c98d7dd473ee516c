// The phone remote and the web app's real /focus page, against a real server (gateway/src/main.ts,
// as `npm start` runs it, on its own ports and DATA_DIR), in Chromium: each focus page is a desktop
// context signed in as its own student (tools/e2e/companion/focus-page.ts), each phone a context at
// 390 x 844 with touch (tools/e2e/companion/phone.ts), both under the web app's Content-Security-Policy,
// all driven by role and accessible name.
//
// It shows: the phone opens the link of the page's QR code (read from its pixels) and shows the
// running timer; a tap on Correct moves the page's counter within 1 s, and Incorrect, Skip, Undo and
// a target follow; the page's own Pause, Resume and counts reach the phone; the page's panel says
// when the phone is connected; with the server stopped the phone's offline badge shows within the
// backoff cap (5 s for a loopback server) and the page says the server is not answering; after a
// restart the badge clears, the time is right, and the page's panel is back; the Android overlay's
// page shows itself for a running session and hides when the page finishes it; the installable
// remote (those with PIP_PAIRING=off); with pairing on, the default, a phone without the code is
// refused and with it works, two students' pages with two phones each see only their own, and a
// restart gives the page a new code that the phone is asked for.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { formatRemaining } from './core/render-tick.ts';
import { BACKOFF_CAP_REMOTE_MS } from './core/poll-schedule.ts';
import type { RunningStudyhall } from '#tools/e2e/app-driver.ts';
import { axeFindings } from '#tools/e2e/axe.ts';
import { chromiumLaunchOptions, mapHostToLoopback } from '#tools/e2e/browser.ts';
import { openFocusPage, type FocusPage } from '#tools/e2e/companion/focus-page.ts';
import type { Phone } from '#tools/e2e/companion/phone.ts';
import { expect, studyhallTest, type ServerFixtures } from '#tools/e2e/fixtures.ts';
import { freePort } from '#tools/testing/free-port.ts';
import { repoRoot } from '#db/paths.ts';

const SCREENSHOT_DIR = path.join(repoRoot, '.tmp', 'companion-screenshots');
const ACTIONS = ['Correct', 'Incorrect', 'Skip', 'Undo', 'Target'];
const CLASSROOM_HOST = 'classroom.test';

const test = studyhallTest({
  env: async () => {
    const port = await freePort();
    return {
      PORT: String(port),
      // The first part shows the open relay of a single-user machine; the PIP_PAIRING=on part below
      // shows the default.
      PIP_PAIRING: 'off',
      // The page is the teacher's at the loopback address; the QR code leads a phone to the students'
      // address, since a phone cannot open this computer's 127.0.0.1.
      PUBLIC_URL: `http://${CLASSROOM_HOST}:${port}`,
    };
  },
});
test.describe.configure({ mode: 'serial' });
test.use({ launchOptions: chromiumLaunchOptions([mapHostToLoopback(CLASSROOM_HOST)]) });

let appUrl: string;
/** The students' address (PUBLIC_URL): a name the browser maps to 127.0.0.1, so phones open plain HTTP. */
let phoneUrl: string;
let studyhall: RunningStudyhall;
let browser: Browser;
let openPhone: ServerFixtures['phoneRemote'];
const focusPages: FocusPage[] = [];

test.beforeAll(async ({ studyhall: server, browser: chromium, phoneRemote }) => {
  studyhall = server;
  browser = chromium;
  openPhone = phoneRemote;
  appUrl = studyhall.url;
  phoneUrl = studyhall.env.PUBLIC_URL!;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
});

/** The time a page shows ("Time left 24:59" on the phone), in seconds. */
function seconds(text: string): number {
  const clock = /(\d+):(\d\d)(?::(\d\d))?/.exec(text);
  if (!clock) throw new Error(`no time in "${text}"`);
  const parts = clock
    .slice(1)
    .filter((part) => part !== undefined)
    .map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

async function phoneSeconds(page: Page): Promise<number> {
  return seconds((await page.getByRole('timer').textContent()) ?? '');
}

/** The page's completionAtMs, as the page posted it, read the way a phone with its code would. */
async function completionAt(code: string | undefined): Promise<number> {
  const state = (await (
    await fetch(`${appUrl}/api/pip/state`, { headers: code ? { 'x-pip-code': code } : {} })
  ).json()) as { completionAtMs: number | null };
  if (state.completionAtMs === null) throw new Error('the focus page posted no running timer');
  return state.completionAtMs;
}

function expectedSeconds(completionAtMs: number): number {
  return Math.ceil(Math.max(0, completionAtMs - Date.now()) / 1000);
}

async function expectNoProblems(phone: Phone): Promise<void> {
  expect(await phone.problems()).toEqual([]);
}

test.describe('the remote with the focus page (PIP_PAIRING=off)', () => {
  let focus: FocusPage;
  let phone: Phone;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    focus = await openFocusPage(browser, appUrl, { email: 'biology@example.com', subject: 'Biology' });
    focusPages.push(focus);
  });

  test('offers the remote with a QR code and no code, since pairing is off', async () => {
    expect(focus.code).toBeUndefined();
    expect(focus.qrLink).toBe(`${phoneUrl}/companion/`);
    const panel = await focus.remotePanel();
    await panel.getByText(/Pairing is off on this server/).waitFor();
    await panel.getByText('No phone yet').waitFor();
  });

  test('shows the running timer of the focus page on the phone that opened the QR link: phase, time, subject', async () => {
    // At the students' address (a name only Chromium's resolver knows) the gateway's own policy holds.
    phone = await openPhone(focus.qrLink, { addCsp: false });
    const { page } = phone;
    await expect.poll(() => page.locator('.phase').textContent(), { timeout: 5_000 }).toBe('Focus');
    await expect.poll(() => page.locator('.subject-name').textContent()).toBe('Biology');
    expect(Math.abs((await phoneSeconds(page)) - expectedSeconds(await completionAt(undefined)))).toBeLessThanOrEqual(
      1,
    );
    // The time keeps running from completionAtMs without waiting for a poll.
    const before = await phoneSeconds(page);
    await page.waitForTimeout(1_100);
    expect(await phoneSeconds(page)).toBeLessThan(before);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    // The page heard that a phone follows it.
    await (await focus.remotePanel()).getByText('Phone connected').waitFor({ timeout: 5_000 });
  });

  test('has five large buttons named Correct, Incorrect, Skip, Undo and Target', async () => {
    for (const name of ACTIONS) {
      const button = phone.page.getByRole('button', { name, exact: true });
      await expect.poll(() => button.count()).toBe(1);
      const box = await button.boundingBox();
      expect(box?.width).toBeGreaterThanOrEqual(44);
      expect(box?.height).toBeGreaterThanOrEqual(44);
    }
  });

  test("moves the focus page's counter within 1 s of a tap on Correct, and says it was delivered", async () => {
    const before = await focus.count('Correct');
    const tapped = Date.now();
    await phone.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await focus.waitForCount('Correct', before + 1, 1_000);
    expect(Date.now() - tapped).toBeLessThan(1_000);
    await expect.poll(() => phone.page.locator('.notice').textContent()).toBe('Sent to the focus page.');
    // The page's new count comes back to the phone with the next poll.
    await expect
      .poll(() => phone.page.locator('#count-correct').textContent(), { timeout: 3_000 })
      .toBe(String(before + 1));
  });

  test('sends Incorrect, Skip, Undo and a target the same way', async () => {
    const incorrect = await focus.count('Incorrect');
    const skipped = await focus.count('Skip');
    await phone.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await focus.waitForCount('Incorrect', incorrect + 1, 2_000);
    await phone.page.getByRole('button', { name: 'Skip', exact: true }).tap();
    await focus.waitForCount('Skip', skipped + 1, 2_000);
    await phone.page.getByRole('button', { name: 'Undo', exact: true }).tap();
    await focus.waitForCount('Skip', skipped, 2_000);
    await phone.page.getByRole('button', { name: 'Target', exact: true }).tap();
    await phone.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-target-light.png') });
    await phone.page.getByRole('textbox', { name: 'Target attempts' }).fill('35');
    await phone.page.getByRole('button', { name: 'Set target' }).tap();
    await expect.poll(() => focus.targetText(), { timeout: 2_000 }).toMatch(/ of 35 answered$/);
    await expect.poll(() => phone.page.locator('#target-value').textContent(), { timeout: 3_000 }).toBe('35');
  });

  test("follows the page's own Pause, Resume and counts", async () => {
    const { page } = phone;
    await focus.press('Pause');
    await expect.poll(() => page.locator('.phase').textContent(), { timeout: 4_000 }).toBe('Focus · paused');
    const paused = await phoneSeconds(page);
    await page.waitForTimeout(1_100);
    expect(await phoneSeconds(page)).toBe(paused);
    await focus.press('Resume');
    await expect.poll(() => page.locator('.phase').textContent(), { timeout: 4_000 }).toBe('Focus');
    expect(Math.abs((await phoneSeconds(page)) - expectedSeconds(await completionAt(undefined)))).toBeLessThanOrEqual(
      1,
    );
    const correct = await focus.count('Correct');
    await focus.press('Correct');
    await expect.poll(() => page.locator('#count-correct').textContent(), { timeout: 4_000 }).toBe(String(correct + 1));
  });

  test('opens the settings sheet and tests the connection', async () => {
    const { page } = phone;
    await page.getByRole('button', { name: 'Settings' }).tap();
    await expect.poll(() => page.getByRole('textbox', { name: 'Server' }).inputValue()).toBe(phoneUrl);
    await page.getByRole('button', { name: 'Test connection' }).tap();
    await expect
      .poll(() => page.locator('.test-result').textContent(), { timeout: 5_000 })
      .toMatch(/^Connected in \d+ ms: a session is running\.$/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    // A browser may only reach the server that served it: another one is refused with a reason.
    await page.getByRole('textbox', { name: 'Server' }).fill('http://192.168.1.20:3000');
    await page.getByRole('button', { name: 'Save' }).tap();
    await expect
      .poll(() => page.locator('#server-url-error').textContent())
      .toMatch(/only reach the server it was opened from/);
    await page.getByRole('button', { name: 'Done' }).tap();
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
  });

  test('shows the offline badge within the backoff cap when the server stops, and clears it with the right time after a restart', async () => {
    test.setTimeout(120_000);
    const { page } = phone;
    const completionAtMs = await completionAt(undefined);
    expect(await page.locator('.offline-badge').count()).toBe(0);
    const stoppedAt = Date.now();
    expect(await studyhall.stop()).toBe(0);
    // The phone is at the students' address, not loopback: its retries back off to the remote cap.
    await page.locator('.offline-badge').waitFor({ state: 'visible', timeout: BACKOFF_CAP_REMOTE_MS });
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(BACKOFF_CAP_REMOTE_MS);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-offline-light.png') });
    // While offline the time still runs from the last completionAtMs, and the page says what happened.
    expect(Math.abs((await phoneSeconds(page)) - expectedSeconds(completionAtMs))).toBeLessThanOrEqual(1);
    const panel = await focus.remotePanel();
    await panel.getByText('Server not reachable').waitFor({ timeout: 10_000 });
    await panel.getByText(/Your timer keeps running here/).waitFor();

    await studyhall.restart();
    const upAt = Date.now();
    await page.locator('.offline-badge').waitFor({ state: 'detached', timeout: BACKOFF_CAP_REMOTE_MS + 1_000 });
    expect(Date.now() - upAt).toBeLessThanOrEqual(BACKOFF_CAP_REMOTE_MS + 1_000);
    // The page posts its snapshot again when its event stream reconnects; the time is the page's.
    await expect.poll(() => page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('Biology');
    expect(Math.abs((await phoneSeconds(page)) - expectedSeconds(completionAtMs))).toBeLessThanOrEqual(1);
    expect(formatRemaining(completionAtMs - Date.now())).toMatch(/^\d\d:\d\d$/);
    await panel.getByText('Phone connected').waitFor({ timeout: 10_000 });
    // And the page still takes the phone's taps.
    const before = await focus.count('Correct');
    await page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await focus.waitForCount('Correct', before + 1, 2_000);
  });

  test('ran under the Content-Security-Policy without a violation or an error', async () => {
    await expectNoProblems(phone);
    expect(focus.violations).toEqual([]);
  });
});

test.describe("the Android overlay's page", () => {
  test('shows itself for the running session and hides when the focus page finishes it', async () => {
    test.setTimeout(60_000);
    const [focus] = focusPages;
    if (!focus) throw new Error('the focus page of the first tests is missing');
    // The calls OverlayService.java receives from the page, recorded by a stand-in bridge.
    const context = await browser.newContext({ viewport: { width: 208, height: 64 } });
    await context.addInitScript(() => {
      const calls: string[] = [];
      Object.assign(window, {
        __overlayCalls: calls,
        StudyhallOverlay: {
          setVisible: (visible: boolean) => calls.push(`visible ${visible}`),
          openApp: () => calls.push('openApp'),
          close: () => calls.push('close'),
        },
      });
    });
    try {
      const page = await context.newPage();
      const calls = () => page.evaluate(() => (window as unknown as { __overlayCalls: string[] }).__overlayCalls);
      const completionAtMs = await completionAt(undefined);
      await page.goto(`${appUrl}/companion/overlay.html?server=${encodeURIComponent(appUrl)}&code=`);
      // The first look is immediate: hidden while watching, then shown for the running session.
      await expect.poll(calls, { timeout: 5_000 }).toEqual(['visible false', 'visible true']);
      await expect
        .poll(
          async () =>
            Math.abs(
              seconds((await page.locator('.overlay-time').textContent()) ?? '') - expectedSeconds(completionAtMs),
            ),
          { timeout: 3_000 },
        )
        .toBeLessThanOrEqual(1);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'android-overlay.png') });
      await focus.press('Finish');
      await expect.poll(calls, { timeout: 5_000 }).toEqual(['visible false', 'visible true', 'visible false']);
      await page.locator('.overlay-face').click();
      expect((await calls()).at(-1)).toBe('openApp');
    } finally {
      await context.close();
    }
  });
});

test.describe('the installable remote', () => {
  test('links its manifest and registers its own service worker, scoped to /companion/', async () => {
    test.setTimeout(60_000);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      await page.goto(`${appUrl}/companion/`);
      const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
      const manifest = await page.evaluate(async (href) => (await fetch(href ?? '')).json(), manifestHref);
      expect(manifest).toMatchObject({ start_url: './', scope: './', display: 'standalone' });
      expect(manifest.icons.map((icon: { sizes: string }) => icon.sizes)).toEqual(
        expect.arrayContaining(['192x192', '512x512']),
      );
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
  });
});

test.describe('pairing on (the default)', () => {
  let biology: FocusPage;
  let history: FocusPage;
  let phoneA: Phone;
  let phoneB: Phone;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    for (const open of focusPages.splice(0)) await open.context.close();
    const stopped = studyhall.stop();
    expect(await stopped, studyhall.output().slice(-2000)).toBe(0);
    // The same server with PIP_PAIRING unset, as a fresh install runs it.
    await studyhall.restart({ PIP_PAIRING: undefined });
    biology = await openFocusPage(browser, appUrl, { email: 'bea@example.com', subject: 'Biology' });
    history = await openFocusPage(browser, appUrl, { email: 'hal@example.com', subject: 'History' });
    focusPages.push(biology, history);
    phoneA = await openPhone(`${appUrl}/companion/`);
  });

  test('shows each page its own code, in its QR link too', async () => {
    expect(biology.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/);
    expect(history.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/);
    expect(history.code).not.toBe(biology.code);
    expect(biology.qrLink).toBe(`${phoneUrl}/companion/#code=${biology.code}`);
    expect(history.qrLink).toBe(`${phoneUrl}/companion/#code=${history.code}`);
    await (await biology.remotePanel()).getByText('Waiting for your phone').waitFor();
  });

  test('opens the panel from the keyboard, with the code and QR code passing axe at 390 px and on a desktop, light and dark', async () => {
    const { page } = biology;
    await page.keyboard.press('Escape');
    const toggle = page.getByRole('button', { name: /^Phone remote/ });
    await page.getByRole('region', { name: 'Phone remote' }).waitFor({ state: 'detached' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    const panel = page.getByRole('region', { name: 'Phone remote' });
    await panel.getByRole('img', { name: /^QR code/ }).waitFor();
    // The panel follows its button in the focus order: Tab reaches the remote's link inside it.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('#phone-remote') !== null)).toBe(true);
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme });
        expect(await axeFindings(page, `${colorScheme} ${viewport.width}`, { include: '#phone-remote' })).toEqual([]);
        await page.screenshot({
          path: path.join(SCREENSHOT_DIR, `focus-remote-panel-${viewport.width}-${colorScheme}.png`),
        });
      }
    }
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
  });

  test('refuses a phone without the code, and asks for it', async () => {
    const status = await phoneA.page.evaluate(async () => (await fetch('/api/pip/state')).status);
    expect(status).toBe(401);
    await phoneA.page.getByRole('heading', { name: 'Pair with your focus page' }).waitFor({ timeout: 5_000 });
    for (const name of ['Correct', 'Incorrect'])
      expect(await phoneA.page.getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
    await phoneA.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'pairing-light.png') });
  });

  test('works with the code, and each of two phones sees only its own page', async () => {
    const withCode = await phoneA.page.evaluate(
      async (code) => (await fetch('/api/pip/state', { headers: { 'x-pip-code': code } })).status,
      biology.code ?? '',
    );
    expect(withCode).toBe(200);

    // Typed by hand on one phone, in lower case; the other phone opens the QR code's link.
    await phoneA.page.getByRole('textbox', { name: 'Pairing code' }).fill((biology.code ?? '').toLowerCase());
    await phoneA.page.getByRole('button', { name: 'Pair' }).tap();
    phoneB = await openPhone(history.qrLink, { colorScheme: 'dark', addCsp: false });
    expect(new URL(phoneB.page.url()).hash).toBe('');

    await expect.poll(() => phoneA.page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('Biology');
    await expect.poll(() => phoneB.page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('History');
    expect(
      Math.abs((await phoneSeconds(phoneA.page)) - expectedSeconds(await completionAt(biology.code))),
    ).toBeLessThanOrEqual(1);
    expect(
      Math.abs((await phoneSeconds(phoneB.page)) - expectedSeconds(await completionAt(history.code))),
    ).toBeLessThanOrEqual(1);
    await phoneB.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-paired-dark.png') });
    await (await biology.remotePanel()).getByText('Phone connected').waitFor({ timeout: 5_000 });
    await (await history.remotePanel()).getByText('Phone connected').waitFor({ timeout: 5_000 });

    await phoneA.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await biology.waitForCount('Correct', 1, 1_000);
    await phoneB.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await history.waitForCount('Incorrect', 1, 1_000);
    await phoneB.page.getByRole('button', { name: 'Incorrect', exact: true }).tap();
    await history.waitForCount('Incorrect', 2, 1_000);

    expect([await biology.count('Correct'), await biology.count('Incorrect'), await biology.count('Skip')]).toEqual([
      1, 0, 0,
    ]);
    expect([await history.count('Correct'), await history.count('Incorrect'), await history.count('Skip')]).toEqual([
      0, 2, 0,
    ]);
    await expect.poll(() => phoneA.page.locator('#count-incorrect').textContent(), { timeout: 3_000 }).toBe('0');
    await expect.poll(() => phoneB.page.locator('#count-incorrect').textContent(), { timeout: 3_000 }).toBe('2');
    await expect.poll(() => phoneB.page.locator('#count-correct').textContent()).toBe('0');

    // The page's own pause reaches only its phone.
    await history.press('Pause');
    await expect.poll(() => phoneB.page.locator('.phase').textContent(), { timeout: 4_000 }).toBe('Focus · paused');
    expect(await phoneA.page.locator('.phase').textContent()).toBe('Focus');
    await history.press('Resume');
    await expect.poll(() => phoneB.page.locator('.phase').textContent(), { timeout: 4_000 }).toBe('Focus');
  });

  test('lets a second tab of the same student point to the first, and take the remote over with the same code when it closes', async () => {
    test.setTimeout(60_000);
    const second = await history.context.newPage();
    await second.goto(`${appUrl}/focus`);
    await second.getByRole('button', { name: 'Pause' }).waitFor();
    await second.getByRole('button', { name: /^Phone remote/ }).click();
    const panel = second.getByRole('region', { name: 'Phone remote' });
    await panel.getByText(/Another studyhall tab in this browser holds the phone remote/).waitFor();
    await panel.getByText('Handled by another tab').waitFor();
    const correct = Number(
      await second.getByRole('button', { name: 'Correct', exact: true }).locator('.counter-value').textContent(),
    );
    await history.page.close();
    await panel.getByLabel('Pairing code').waitFor({ timeout: 10_000 });
    expect(((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '')).toBe(history.code);
    await phoneB.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await second
      .getByRole('button', { name: 'Correct', exact: true })
      .locator('.counter-value')
      .filter({ hasText: new RegExp(`^${correct + 1}$`) })
      .waitFor({ timeout: 2_000 });
  });

  test('gives the page a new code after a restart, says so, and the phone is asked for it and works with it', async () => {
    test.setTimeout(120_000);
    const oldCode = biology.code ?? '';
    expect(await studyhall.stop()).toBe(0);
    await studyhall.restart();
    const panel = await biology.remotePanel();
    await panel.getByText(/The server forgot the old code/).waitFor({ timeout: 15_000 });
    const newCode = ((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '');
    expect(newCode).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/);
    expect(newCode).not.toBe(oldCode);
    await biology.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'focus-renewed-code-desktop.png') });
    await phoneA.page.getByRole('heading', { name: 'Pair with your focus page' }).waitFor({ timeout: 10_000 });
    await phoneA.page.getByRole('textbox', { name: 'Pairing code' }).fill(newCode);
    await phoneA.page.getByRole('button', { name: 'Pair' }).tap();
    await expect.poll(() => phoneA.page.locator('.subject-name').textContent(), { timeout: 5_000 }).toBe('Biology');
    const before = await biology.count('Skip');
    await phoneA.page.getByRole('button', { name: 'Skip', exact: true }).tap();
    await biology.waitForCount('Skip', before + 1, 2_000);
    // The phone came back with the new code: the warning has done its work.
    await panel.getByText('Phone connected').waitFor({ timeout: 5_000 });
    expect(await panel.getByText(/The server forgot the old code/).count()).toBe(0);
  });

  test('ran both phones and both pages under the Content-Security-Policy without a violation or an error', async () => {
    for (const phone of [phoneA, phoneB]) await expectNoProblems(phone);
    expect([...biology.violations, ...history.violations]).toEqual([]);
  });

  test('stops cleanly', async () => {
    test.setTimeout(30_000);
    expect(await studyhall.stop()).toBe(0);
  });
});

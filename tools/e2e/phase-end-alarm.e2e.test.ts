// The phase-end alarm in Chromium against a real server (gateway/src/main.ts, as `npm start` runs
// it, with WEB_PUSH_ALLOW_HTTP for a loopback push service): Ada's focus page, its clock started
// so that its 25-minute focus phase ends fifteen seconds after Start (room for a slow machine), is hidden behind another tab
// of her browser when the phase ends. The page shows a system notification (permission granted, `Notification`
// spied), the server pushes the end, naming the phase, to her device on the loopback push service,
// and her phone (the remote at 390 px) vibrates (`navigator.vibrate` spied) and shows the end. The
// phone also starts, pauses and resumes the page's timer. Screenshots of the changed screens go to
// .tmp/alarm-screenshots.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startPushReceiver, type PushReceiver, type ReceiverSubscription } from '#gateway/test/push-receiver.ts';
import { repoRoot } from '#db/paths.ts';
import { accountSession, VIEWPORTS } from './app-driver.ts';
import { studentContext } from './companion/focus-page.ts';
import type { Phone } from './companion/phone.ts';
import { expect, studyhallTest } from './fixtures.ts';

const SCREENSHOT_DIR = path.join(repoRoot, '.tmp', 'alarm-screenshots');
const EMAIL = 'alarm-ada@example.com';
/** The focus phase ends this long after Start. */
const LEAD_MS = 15_000;
/** How far the page's clock starts behind: Start then makes a 25-minute phase that ends LEAD_MS later. */
const BEHIND_MS = 25 * 60_000 - LEAD_MS;

const test = studyhallTest({ env: { WEB_PUSH_ALLOW_HTTP: 'true' } });
test.describe.configure({ mode: 'serial', timeout: 120_000 });

let appUrl: string;
let receiver: PushReceiver;
let device: ReceiverSubscription;

// Records every notification the page makes, as a student would see it.
const NOTIFICATION_SPY = () => {
  const shown: { title: string; body: string | undefined; tag: string | undefined }[] = [];
  const Real = window.Notification;
  class Spied extends Real {
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, body: options?.body, tag: options?.tag });
      super(title, options);
    }
  }
  Object.defineProperty(Spied, 'permission', { get: () => Real.permission });
  Object.assign(window, { Notification: Spied, __notifications: shown });
};

const VIBRATE_SPY = () => {
  const calls: unknown[] = [];
  Object.defineProperty(navigator, 'vibrate', { value: (pattern: unknown) => (calls.push(pattern), true) });
  Object.assign(window, { __vibrations: calls });
};

test.beforeAll(async ({ studyhall }) => {
  appUrl = studyhall.url;
  const served = (await (await fetch(`${appUrl}/api/push/vapid-public-key`)).json()) as { public_key: string };
  receiver = await startPushReceiver({ expectedVapidKey: served.public_key });
  // Ada's device: registered as the app registers one, with her own token.
  const session = await accountSession(appUrl, EMAIL, `${EMAIL}-password-1`);
  device = receiver.subscribe();
  const config = (await (await fetch(`${appUrl}/api/client-config`)).json()) as { anon_key: string };
  const registered = await fetch(`${appUrl}/__backend/rest/v1/rpc/community_register_device_token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      apikey: config.anon_key,
      authorization: `Bearer ${session.access_token}`,
    },
    body: JSON.stringify({ p_token: device.token }),
  });
  expect(registered.status).toBe(200);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
});

test.afterAll(async () => {
  await receiver?.close();
});

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

test.describe('the phase-end alarm', () => {
  let focus: Page;
  let phone: Phone;

  test.beforeAll(async ({ browser, phoneRemote }) => {
    const context = await studentContext(browser, appUrl, EMAIL);
    await context.grantPermissions(['notifications'], { origin: appUrl });
    await context.addInitScript(NOTIFICATION_SPY);
    focus = await context.newPage();
    focus.setDefaultTimeout(15_000);
    // The page's clock starts just before the end of a 25-minute focus phase.
    await focus.clock.install({ time: Date.now() - BEHIND_MS });
    await focus.goto(`${appUrl}/focus`);
    await focus.getByRole('button', { name: 'Start' }).waitFor();
    // Pairing is on by default: read the code off the page's Phone remote panel, as the student does.
    await focus.getByRole('button', { name: /^Phone remote/ }).click();
    const panel = focus.getByRole('region', { name: 'Phone remote' });
    const code = ((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '');
    expect(code).toMatch(/^[0-9A-Z]{6}$/);
    await focus.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    phone = await phoneRemote(`${appUrl}/companion/#code=${code}`);
    await phone.context.addInitScript(VIBRATE_SPY);
    await phone.page.reload();
  });

  test('starts from the phone, and the page and the phone show it running', async () => {
    await phone.page.getByRole('button', { name: 'Start', exact: true }).click();
    await focus.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 3000 });
    // Start made a phase that ends LEAD_MS from now on every clock; the page's clock now catches up
    // with the server's and the phone's, so all three see the same end.
    await focus.clock.fastForward(BEHIND_MS);
    await phone.page.getByRole('button', { name: 'Pause', exact: true }).waitFor({ timeout: 5000 });
    await phone.page.getByRole('button', { name: 'Pause', exact: true }).click();
    await focus.getByRole('button', { name: 'Resume' }).waitFor({ timeout: 3000 });
    await phone.page.getByRole('button', { name: 'Resume', exact: true }).waitFor({ timeout: 5000 });
    await shoot(phone.page, 'phone-paused-390');
    await phone.page.getByRole('button', { name: 'Resume', exact: true }).click();
    await focus.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 3000 });
  });

  test('ends the hidden page’s phase with a notification, a push naming it, and the phone’s vibration and words', async () => {
    // Another tab in front: the focus page is hidden, as when the student reads something else.
    // Another site's tab (a tab of the app would tick the timer itself and, being in sight, only chime).
    const other = await focus.context().newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    // Headless Chromium gives every tab a window of its own, so a tab in front hides no other: the
    // page is then told it is hidden, exactly as the browser would tell it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    if ((await focus.evaluate(() => document.visibilityState)) !== 'hidden') {
      await focus.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    }
    expect(await focus.evaluate(() => document.visibilityState)).toBe('hidden');
    // Hidden before the end, or the page rightly only chimes.
    expect(await focus.getByRole('button', { name: 'Pause' }).isVisible()).toBe(true);
    const notifications = () =>
      focus.evaluate(() => (window as unknown as { __notifications: unknown[] }).__notifications);
    await expect
      .poll(notifications, { timeout: 2 * LEAD_MS })
      .toEqual([{ title: 'Focus phase over', body: 'Time for a break.', tag: 'phase-end' }]);
    const [push] = await receiver.waitForReceived(1, 2 * LEAD_MS, device.id);
    expect(push!.payload).toMatchObject({ type: 'phase_end', phase: 'focus', url: '/focus' });
    await phone.page.getByRole('alert').filter({ hasText: 'Focus phase over' }).waitFor({ timeout: 3000 });
    const vibrations = await phone.page.evaluate(() => (window as unknown as { __vibrations: unknown[] }).__vibrations);
    expect(vibrations).toContainEqual([300, 120, 300]);
    await shoot(phone.page, 'phone-phase-end-390');
    // The settings screen with the alarm's choices, at desktop width and at 390 px.
    await other.goto(`${appUrl}/settings`);
    await other.getByRole('heading', { name: 'Phase-end alarm' }).waitFor();
    await shoot(other, 'settings-desktop');
    await other.setViewportSize({ width: 390, height: 844 });
    await shoot(other, 'settings-390');
    await other.setViewportSize(VIEWPORTS.desktop);
    await other.close();
  });
});

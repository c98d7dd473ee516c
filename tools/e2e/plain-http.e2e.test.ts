// The student app as a classroom meets it: opened at the server's plain-HTTP network address, which
// browsers do not treat as a secure context (no crypto.randomUUID, service worker, notifications,
// Web Push, clipboard or Document Picture-in-Picture). Chromium maps the name classroom.test to
// 127.0.0.1 (--host-resolver-rules), so the page is neither https nor loopback, against a real
// `npm start` on a fresh DATA_DIR. Every browser test elsewhere opens 127.0.0.1, which browsers do
// count as secure, and hides exactly these failures.
//
// Driven by role and accessible name: sign up; add a subject and a task; pair the phone remote
// (the companion page at the same origin) and drive the focus page from it, with a second tab of
// the page that leaves the phone to the first (no Web Locks here); a focus session saved and seen
// in Stats (its phase fast-forwarded by the page's clock); a save the device refuses says so and
// never "Everything is synced"; chat between two students; a copy button that cannot reach the
// clipboard selects the link instead; and each feature that needs the secure address says so where
// it is offered, in the words for a server without one and for a server with one. Screenshots of
// those screens, at 390 and 1280 px, go to .tmp/plain-http-screenshots.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import { VIEWPORTS, type CspViolation, type RunningStudyhall } from './app-driver.ts';
import { chromiumLaunchOptions, mapHostToLoopback } from './browser.ts';
import { chatShows, student, type Student } from './community-driver.ts';
import { watchedPage } from './community-fixture.ts';
import { readQrCode } from './companion/focus-page.ts';
import type { Phone } from './companion/phone.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { pageClockLag } from './page-clock.ts';

/** Not `localhost` or `*.localhost`, which Chromium counts as secure like 127.0.0.1. */
const CLASSROOM_HOST = 'classroom.test';
const SCREENSHOT_DIR = path.join(repoRoot, '.tmp', 'plain-http-screenshots');
const EMAIL = 'lena@example.com';
const PASSWORD = 'lena-password-1';

/** The sentence for a server that offers no https address (contracts/secure-address.ts). */
const noSecureAddress = (needs: string) =>
  `${needs} the secure (https) address, which this server does not offer yet — ask whoever runs it.`;

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });
test.use({ launchOptions: chromiumLaunchOptions([mapHostToLoopback(CLASSROOM_HOST)]) });

let studyhall: RunningStudyhall;
let browser: Browser;
/** http://classroom.test:<port>: the server's own port under a name that is not loopback. */
let app: string;
const violations: CspViolation[] = [];
const contexts: BrowserContext[] = [];

/**
 * A desktop context at the classroom origin. The test server listens on loopback, so its client
 * config lists no LAN address for the phone; the context answers with the classroom origin there,
 * as a server on the network lists its LAN address, so the phone remote's panel draws its QR code.
 * `config` replaces more fields of that answer (a server that offers an https address).
 */
async function classroomContext(config: Record<string, unknown> = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  contexts.push(context);
  await context.route(`${app}/api/client-config`, async (route) => {
    // Fetched from Node, which knows no classroom.test: the same server at its loopback address.
    const response = await route.fetch({ url: `${studyhall.url}/api/client-config` });
    const answer = (await response.json()) as Record<string, unknown>;
    await route.fulfill({ response, json: { ...answer, companion_urls: [app], ...config } });
  });
  return context;
}

function newPage(context: BrowserContext): Promise<Page> {
  return watchedPage(context, violations);
}

/** Both looks a student may have, a phone and a laptop: the whole page, or `part` of it. */
async function screenshots(page: Page, name: string, part?: Locator): Promise<void> {
  for (const [look, viewport] of [
    ['390', VIEWPORTS.phone],
    ['1280', VIEWPORTS.desktop],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const file = path.join(SCREENSHOT_DIR, `${name}-${look}.png`);
    await (part ? part.screenshot({ path: file }) : page.screenshot({ path: file, fullPage: true }));
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** The sync line of the rail (the desktop layout), as a student reads it. */
function syncLine(page: Page) {
  return page.getByTestId('sync-status-rail');
}

test.beforeAll(async ({ studyhall: server, browser: chromium }) => {
  studyhall = server;
  browser = chromium;
  app = `http://${CLASSROOM_HOST}:${new URL(studyhall.url).port}`;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
});

test.afterAll(async () => {
  for (const open of contexts) await open.close().catch(() => undefined);
});

test.describe('the app at a plain-HTTP network address', () => {
  let lena: BrowserContext;
  let page: Page;
  let phone: Phone;
  const pageErrors: string[] = [];

  test('is not a secure context there, and the browser lacks what only secure pages get', async () => {
    lena = await classroomContext();
    // Lena's focus phase is finished by fast-forwarding her page's clock, which therefore starts
    // behind the server's by more than the phase: the backend refuses a session that ends in the
    // future (page-clock.ts).
    await lena.clock.install({ time: Date.now() - pageClockLag({ behindMinutes: 3, spanMinutes: 30 }) });
    page = await newPage(lena);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${app}/focus`);
    const facts = await page.evaluate(() => ({
      secure: window.isSecureContext,
      randomUUID: typeof crypto.randomUUID,
      serviceWorker: 'serviceWorker' in navigator,
      clipboard: 'clipboard' in navigator,
    }));
    expect(facts).toEqual({ secure: false, randomUUID: 'undefined', serviceWorker: false, clipboard: false });
  });

  test('says on the welcome screen that offline use needs the secure address, never that it works offline', async () => {
    test.setTimeout(60_000);
    await page.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    await page.getByRole('tab', { name: 'Log in', exact: true }).click();
    const card = page.locator('.welcome-card');
    await card.getByText(noSecureAddress('Offline use needs')).waitFor();
    expect(await card.textContent()).not.toContain('works offline');
    await screenshots(page, 'welcome-login');
  });

  test('signs a new student up from the welcome screen', async () => {
    test.setTimeout(60_000);
    await page.getByRole('tab', { name: 'Create account', exact: true }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account', exact: true }).click();
    await page.getByRole('button', { name: 'Start' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => syncLine(page).textContent(), { timeout: 10_000 }).toBe('Everything is synced');
  });

  test('adds a subject and a task, which stay after a reload and reach the backend', async () => {
    test.setTimeout(60_000);
    await page.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await page.getByLabel('New subject').fill('Physics');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel('Subject').locator('option:checked', { hasText: 'Physics' }).waitFor({ state: 'attached' });

    await page.getByLabel('Add a task for today').fill('Kinematics worksheet');
    await page.getByRole('button', { name: 'Add task' }).click();
    const done = page.getByRole('checkbox', { name: 'Done: Kinematics worksheet' });
    await done.waitFor();
    await expect.poll(() => syncLine(page).textContent(), { timeout: 10_000 }).toBe('Everything is synced');

    await page.reload();
    await page.getByRole('checkbox', { name: 'Done: Kinematics worksheet' }).waitFor();
    expect(await page.getByLabel('Subject').locator('option', { hasText: 'Physics' }).count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  test('pairs the phone remote at the same origin, which then drives the focus page', async ({ phoneRemote }) => {
    test.setTimeout(90_000);
    // One-minute focus phases: the shortest a student can set, finished below by the page's clock.
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Focus length').fill('1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Focus' }).click();
    await page.getByLabel('Subject').selectOption({ label: 'Physics' });

    await page.getByRole('button', { name: /^Phone remote/ }).click();
    const panel = page.getByRole('region', { name: 'Phone remote' });
    await panel.getByRole('img', { name: /^QR code/ }).waitFor();
    const code = ((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '');
    const link = await readQrCode(page);
    expect(link).toBe(`${app}/companion/#code=${code}`);
    // The remote opens from that link, but it is not installable there: the panel says what to do.
    await panel.getByText(noSecureAddress('Adding the remote to your home screen needs')).waitFor();
    await screenshots(page, 'focus-phone-remote');

    // As the server sent it: its own policy, checked below (a page the test fulfilled itself would
    // count as a public address to Chromium, which then refuses its calls to this loopback one).
    phone = await phoneRemote(link, { addCsp: false });
    expect(await phone.page.evaluate(() => window.isSecureContext)).toBe(false);
    const served = await fetch(`${studyhall.url}/companion/`);
    expect(served.headers.get('content-security-policy')).toContain("connect-src 'self'");
    await phone.page.getByRole('button', { name: 'Start', exact: true }).tap({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 5_000 });
    await phone.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    await page.waitForFunction(() => document.querySelector('#count-correct')?.textContent === '1', undefined, {
      timeout: 5_000,
    });
    await expect.poll(() => panel.getByText('Phone connected').isVisible()).toBe(true);
    expect(await phone.problems()).toEqual([]);
  });

  test('gives the phone link to one tab only, so a second tab of the focus page counts a tap once', async () => {
    test.setTimeout(60_000);
    // No Web Locks on a plain-HTTP page: the tabs agree through their stand-in (lib/tab-locks.ts).
    const second = await newPage(lena);
    await second.goto(`${app}/focus`);
    await second.getByRole('button', { name: /^Phone remote/ }).click();
    await second.getByRole('region', { name: 'Phone remote' }).getByText('Handled by another tab').waitFor();
    await phone.page.getByRole('button', { name: 'Correct', exact: true }).tap();
    const correct = (tab: Page) => tab.locator('#count-correct').textContent();
    for (const tab of [page, second]) await expect.poll(() => correct(tab), { timeout: 5_000 }).toBe('2');
    await page.waitForTimeout(1_000);
    expect([await correct(page), await correct(second)]).toEqual(['2', '2']);
    await second.close();
  });

  test('says on the phone, in its settings, that adding it to the home screen needs the secure address', async () => {
    test.setTimeout(30_000);
    await phone.page.getByRole('button', { name: 'Settings' }).tap();
    const sheet = phone.page.getByRole('dialog', { name: 'Settings' });
    await sheet.getByText(noSecureAddress('Adding the remote to your home screen needs')).waitFor();
    await phone.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'companion-settings-390.png') });
    await sheet.getByRole('button', { name: 'Done' }).tap();
  });

  test('saves a focus session after a whole phase, and Stats shows it', async () => {
    test.setTimeout(60_000);
    await page.keyboard.press('Escape');
    await page.clock.fastForward('01:05'); // the one-minute focus phase is over, the break has begun
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Break');
    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved 1 min of focus' }).waitFor();
    await expect.poll(() => syncLine(page).textContent(), { timeout: 10_000 }).toBe('Everything is synced');
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Stats' }).click();
    await expect.poll(() => page.getByTestId('stat-today').textContent()).toBe('1 min');
    expect(await page.locator('main').textContent()).not.toContain('No study sessions yet');
    expect(pageErrors).toEqual([]);
  });

  test('says when the device refuses a save, and never "Everything is synced" meanwhile', async () => {
    test.setTimeout(60_000);
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Focus' }).click();
    // The device's storage refuses writes, as a full disk or a browser in trouble does.
    await page.evaluate(() => {
      const put = IDBObjectStore.prototype.put;
      Object.assign(window, { __idbPut: put });
      IDBObjectStore.prototype.put = function refused() {
        throw new DOMException('The disk is full.', 'QuotaExceededError');
      };
    });
    await page.getByLabel('Add a task for today').fill('Optics notes');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Not saved on this device. Try again; if it keeps failing, reload the page.' })
      .waitFor();
    await page.getByTestId('not-saved-banner').filter({ hasText: 'the task “Optics notes”' }).waitFor();
    await expect.poll(() => syncLine(page).textContent()).toBe('A change was not saved');
    expect(await page.locator('body').textContent()).not.toContain('Everything is synced');
    await screenshots(page, 'focus-save-failed');

    await page.evaluate(() => {
      IDBObjectStore.prototype.put = (window as unknown as { __idbPut: typeof IDBObjectStore.prototype.put }).__idbPut;
    });
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('checkbox', { name: 'Done: Optics notes' }).waitFor();
    await expect.poll(() => syncLine(page).textContent(), { timeout: 10_000 }).toBe('Everything is synced');
    expect(await page.getByRole('alert').filter({ hasText: 'Not saved' }).count()).toBe(0);
    expect(await page.getByTestId('not-saved-banner').count()).toBe(0);
  });

  test('says where each secure-only feature is offered that it needs the secure address', async () => {
    test.setTimeout(60_000);
    await page.getByRole('button', { name: 'Pop out' }).click();
    await page
      .getByRole('region', { name: 'Pop out' })
      .getByText(noSecureAddress('The Pop-out window needs'))
      .waitFor();
    await screenshots(page, 'focus-pop-out');
    await page.keyboard.press('Escape');

    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Settings' }).click();
    const alarm = page.getByRole('region', { name: 'Phase-end alarm' });
    await alarm.getByText(noSecureAddress('Notifications need')).waitFor();
    expect(await alarm.textContent()).not.toContain('site settings');
    expect(await alarm.getByRole('button', { name: 'Allow notifications' }).count()).toBe(0);
    await screenshots(page, 'settings-alarm', alarm);

    await page.goto(`${app}/buddies`);
    const alerts = page.getByRole('region', { name: 'Start alerts' });
    await alerts.getByText(noSecureAddress('Alerts on this device need')).waitFor();
    expect(await alerts.textContent()).not.toContain('site settings');
    expect(await alerts.textContent()).not.toContain('This browser cannot');
    expect(await alerts.getByRole('button', { name: 'Allow notifications on this device' }).count()).toBe(0);
  });

  test('selects the link when a copy button cannot reach the clipboard, and says how to copy it', async () => {
    test.setTimeout(60_000);
    await page.getByRole('button', { name: 'Create a buddy invite link' }).click();
    const link = page.getByRole('textbox', { name: 'Your buddy invite link' });
    await expect.poll(() => link.inputValue()).toMatch(new RegExp(`^${app}/invite/`));
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText('Press Ctrl+C / long-press to copy').waitFor();
    const selection = await link.evaluate((input: HTMLInputElement) => ({
      focused: document.activeElement === input,
      selected: input.value.slice(input.selectionStart ?? 0, input.selectionEnd ?? 0),
    }));
    expect(selection).toEqual({ focused: true, selected: await link.inputValue() });
    await screenshots(page, 'buddies-copy-and-alerts');
  });

  test('links to the https address where the server offers one', async () => {
    test.setTimeout(60_000);
    const secure = 'https://classroom.test:3443';
    const context = await classroomContext({ https_url: secure });
    const other = await newPage(context);
    await other.goto(`${app}/focus`);
    await other.getByRole('tab', { name: 'Log in', exact: true }).click();
    const card = other.locator('.welcome-card');
    const offer = card.getByRole('link', { name: `${secure}/focus` });
    await offer.waitFor();
    expect(await offer.getAttribute('href')).toBe(`${secure}/focus`);
    expect(await offer.locator('..').textContent()).toBe(
      `Open ${secure}/focus for offline use — your teacher installs the certificate once.`,
    );
    expect(await card.textContent()).not.toContain('does not offer');
    await screenshots(other, 'welcome-login-with-https');
    await context.close();
  });
});

test.describe('chat between two students at the plain-HTTP address', () => {
  let ada: Student;
  let bo: Student;
  let adaPage: Page;
  let boPage: Page;

  test.beforeAll(async () => {
    test.setTimeout(60_000);
    ada = await student(studyhall.url, 'Ada', 'ada_lan');
    bo = await student(studyhall.url, 'Bo', 'bo_lan');
  });

  async function signedIn(who: Student): Promise<Page> {
    const context = await classroomContext();
    await context.addInitScript((stored: string) => {
      if (!localStorage.getItem('studyhall-auth')) localStorage.setItem('studyhall-auth', stored);
    }, JSON.stringify(who.session));
    return newPage(context);
  }

  test('lets Ada make a group and an invite link, and Bo join through it', async () => {
    test.setTimeout(90_000);
    adaPage = await signedIn(ada);
    await adaPage.goto(`${app}/community`);
    await adaPage.getByRole('button', { name: 'Create a group' }).first().click();
    const dialog = adaPage.getByRole('dialog', { name: 'Create a group' });
    await dialog.getByLabel('Name').fill('Evening Physics');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await adaPage.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
    const groupUrl = adaPage.url();
    await adaPage.getByRole('button', { name: 'Create invite link' }).click();
    const link = adaPage.getByRole('textbox', { name: 'Invite link' }).first();
    await expect.poll(() => link.inputValue()).toMatch(/\/invite\/[0-9a-f]{36}$/);
    const inviteUrl = await link.inputValue();
    expect(inviteUrl.startsWith(`${app}/invite/`)).toBe(true);

    boPage = await signedIn(bo);
    await boPage.goto(inviteUrl);
    await boPage.getByRole('button', { name: 'Join Evening Physics' }).click();
    await boPage.waitForURL(groupUrl);
    await adaPage.goto(groupUrl);
  });

  test('carries messages both ways, live', async () => {
    test.setTimeout(60_000);
    for (const page of [adaPage, boPage])
      await expect.poll(() => page.locator('.chat-status').textContent(), { timeout: 15_000 }).toContain('Live');
    const rounds: [Page, Page, string][] = [
      [adaPage, boPage, 'Problem set 3 tonight?'],
      [boPage, adaPage, 'Yes, after dinner.'],
    ];
    for (const [from, to, text] of rounds) {
      await from.getByRole('textbox', { name: 'Message' }).fill(text);
      await from.getByRole('textbox', { name: 'Message' }).press('Enter');
      await chatShows(to, text, 5_000);
    }
  });

  test('ran without a Content-Security-Policy violation anywhere', () => {
    expect(violations).toEqual([]);
  });
});

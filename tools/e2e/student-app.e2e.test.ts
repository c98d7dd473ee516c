// The student app in Debian's Chromium against a real `npm start` on a fresh DATA_DIR, served
// under the app's Content-Security-Policy: sign up, focus with a phone action relayed over SSE,
// finish and see the minutes in Stats, restore the backup in a fresh browser, keep working
// offline, count from the Pop-out window, update a dirty checkout after confirming, and pass axe
// on every screen with no CSP violation anywhere.
import { execFileSync } from 'node:child_process';
import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildGateway } from '#gateway/src/app.ts';
import { makeFixtureRepo, makeTempDir, runGit, testConfig } from '#gateway/test/helpers.ts';
import { repoRoot } from '#db/paths.ts';
import {
  accountSession,
  inLook,
  signedInContext,
  startCspProxy,
  type CspViolation,
  type RunningStudyhall,
  type SessionJson,
} from './app-driver.ts';
import { axeFindings } from './axe.ts';
import { watchedPage } from './community-fixture.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { pageClockLag } from './page-clock.ts';

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });

const EMAIL = 'nora@example.com';
const PASSWORD = 'nora-password-1';

let studyhall: RunningStudyhall;
let browser: Browser;
let app: string;
/** Every page's CSP violations: one shared list, checked once at the end, after every screen was visited. */
const violations: CspViolation[] = [];
/**
 * How far behind the server every page that counts today's minutes runs its clock: at least the
 * focus phase fast-forwarded below, and the same for each page so that all of them, at any hour,
 * see the session on today's study day (page-clock.ts).
 */
let pageLag = 0;

function newPage(context: BrowserContext): Promise<Page> {
  return watchedPage(context, violations);
}

function context(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  return browser.newContext(options);
}

async function storedSession(page: Page): Promise<SessionJson> {
  return JSON.parse((await page.evaluate(() => localStorage.getItem('studyhall-auth'))) ?? 'null') as SessionJson;
}

/** The code the focus page shows in its Phone remote panel: what a phone needs (pairing is on by default). */
let pairingCode = '';

async function pipState(): Promise<{ attempts: { correct: number }; phase: string; running: boolean }> {
  return (await fetch(`${studyhall.url}/api/pip/state`, { headers: { 'x-pip-code': pairingCode } })).json() as never;
}

async function readPairingCode(page: Page): Promise<string> {
  await page.getByRole('button', { name: /^Phone remote/ }).click();
  const shown = page.getByRole('region', { name: 'Phone remote' }).getByLabel('Pairing code');
  await shown.waitFor();
  const code = ((await shown.textContent()) ?? '').replace(/\s/g, '');
  await page.keyboard.press('Escape');
  return code;
}

test.beforeAll(async ({ studyhall: server, app: address, browser: chromium }) => {
  studyhall = server;
  app = address;
  browser = chromium;
  pageLag = pageClockLag({ behindMinutes: 27, spanMinutes: 60 });
});

test.describe('the student app on a real npm start', () => {
  let first: BrowserContext;
  let page: Page;

  test('signs a new student up from the welcome screen', async () => {
    first = await context();
    // The page's clock starts at least 27 minutes behind, so once the focus phase is fast-forwarded
    // the session ends before the server's now: a session that ends in the future is refused.
    await first.clock.install({ time: Date.now() - pageLag });
    page = await newPage(first);
    const response = await page.goto(`${app}/focus`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // A browser nobody signed in on yet: greeted as a first visit, already on "Create account".
    await page.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    await page.getByRole('tab', { name: 'Create account', exact: true }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account', exact: true }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Start' }).isVisible(), { timeout: 20_000 }).toBe(true);
    expect((await storedSession(page)).user.email).toBe(EMAIL);
  });

  test('relays a phone action to the running focus page: the counter and /api/pip/state show 1 within 1 s', async () => {
    await page.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await page.getByLabel('New subject').fill('Chemistry');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => page.getByLabel('Subject').inputValue()).not.toBe('');
    await page.getByRole('button', { name: 'Start' }).click();
    pairingCode = await readPairingCode(page);
    await expect.poll(async () => (await pipState()).running, { timeout: 5000 }).toBe(true);
    // The page holds the relay stream once it has announced itself with a snapshot.
    await expect.poll(() => page.evaluate(() => document.querySelector('#count-correct')?.textContent)).toBe('0');
    await page.waitForTimeout(500);

    const sent = Date.now();
    const answer = await fetch(`${studyhall.url}/api/pip/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pip-code': pairingCode },
      body: JSON.stringify({ action: 'correct' }),
    });
    expect(answer.status).toBe(202);
    expect(await answer.json()).toMatchObject({ accepted: true, delivered: 1 });
    await page.waitForFunction(() => document.querySelector('#count-correct')?.textContent === '1', undefined, {
      timeout: 1000,
    });
    await expect.poll(async () => (await pipState()).attempts.correct, { timeout: 1000, intervals: [50] }).toBe(1);
    expect(Date.now() - sent).toBeLessThan(1000);
    expect(await page.getByRole('button', { name: 'Correct', exact: true }).getAttribute('aria-describedby')).toBe(
      'count-correct',
    );
  });

  test('finishes after a full focus phase and shows its minutes in Stats', async () => {
    await first.clock.fastForward('26:00'); // the 25-minute focus phase is over, the break has begun
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Break');
    await page.getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved 25 min of focus' }).count()).toBe(1);
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Stats' }).click();
    await expect.poll(() => page.getByTestId('stat-today').textContent()).toBe('25 min');
    await expect.poll(() => page.getByText('Chemistry').first().isVisible()).toBe(true);
    // The chart's table for screen readers takes no room: the page ends with the frame, so at the
    // bottom of the page the rail is still in view.
    const layout = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const table = document.querySelector('.day-chart table');
      const hidden = table?.closest('.visually-hidden')?.getBoundingClientRect();
      return {
        page: document.documentElement.scrollHeight,
        frame: Math.ceil(document.querySelector('.shell')?.getBoundingClientRect().height ?? 0),
        railTop: document.querySelector('.rail')?.getBoundingClientRect().top,
        hidden: hidden && { width: hidden.width, height: hidden.height },
      };
    });
    expect(layout.page).toBeLessThanOrEqual(layout.frame);
    expect(Math.abs(layout.railTop ?? Number.NaN)).toBeLessThan(1); // sub-pixel rounding of the page's height
    expect(layout.hidden).toEqual({ width: 1, height: 1 });
  });

  test('records the session on the backend once and backs it up', async () => {
    const session = await storedSession(page);
    const headers = { authorization: `Bearer ${session.access_token}` };
    const anon = (await (await fetch(`${studyhall.url}/api/client-config`)).json()) as { anon_key: string };
    await expect
      .poll(
        async () => {
          const rows = await fetch(
            `${studyhall.url}/__backend/rest/v1/study_sessions?select=minutes,correct,subject_name`,
            { headers: { ...headers, apikey: anon.anon_key } },
          );
          return rows.json();
        },
        { timeout: 15_000 },
      )
      .toEqual([{ minutes: 25, correct: 1, subject_name: 'Chemistry' }]);
    await expect
      .poll(
        async () => {
          const latest = await fetch(`${studyhall.url}/__auth/backup/latest`, { headers });
          if (!latest.ok) return 0;
          const body = (await latest.json()) as { backup: { payload: { sessions?: unknown[] } } | null };
          return body.backup?.payload.sessions?.length ?? 0;
        },
        { timeout: 30_000, intervals: [500] },
      )
      .toBe(1);
  });

  test('brings the session to the same student in a fresh browser, without a restore offer: the server holds it', async () => {
    const fresh = await context();
    await fresh.clock.install({ time: Date.now() - pageLag });
    const other = await newPage(fresh);
    await other.goto(`${app}/stats`);
    await other.getByRole('tab', { name: 'Log in', exact: true }).click();
    await other.getByLabel('E-mail').fill(EMAIL);
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Log in to my account', exact: true }).click();
    await expect.poll(() => other.getByTestId('stat-today').textContent(), { timeout: 20_000 }).toBe('25 min');
    // The backup holds nothing the server does not: nothing to offer.
    await other.waitForLoadState('networkidle');
    expect(await other.getByRole('dialog', { name: 'Restore your backup on this device?' }).count()).toBe(0);
    await other.close();
  });

  test('loads the app and its local data offline after one visit', async () => {
    test.setTimeout(90_000);
    const offlineContext = await signedInContext(browser, await storedSession(page));
    await offlineContext.clock.install({ time: Date.now() - pageLag });
    const offline = await newPage(offlineContext);
    await offline.goto(`${app}/stats`);
    await expect.poll(() => offline.getByTestId('stat-today').textContent(), { timeout: 20_000 }).toBe('25 min');
    await offline.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
    });

    await offlineContext.setOffline(true);
    await offline.reload();
    await expect.poll(() => offline.getByTestId('stat-today').textContent(), { timeout: 10_000 }).toBe('25 min');
    await expect
      .poll(() => offline.getByTestId('offline-banner').filter({ hasText: 'no network' }).isVisible())
      .toBe(true);
    await expect
      .poll(() =>
        offline
          .getByRole('status')
          .filter({ hasText: /^Offline$/ })
          .first()
          .isVisible(),
      )
      .toBe(true);
    await offline.goto(`${app}/focus`);
    await expect.poll(() => offline.getByRole('button', { name: 'Start' }).isVisible(), { timeout: 10_000 }).toBe(true);
    // Work done offline waits in the outbox and says so.
    await offline.getByLabel('Add a task for today').fill('Revise aldehydes');
    await offline.getByRole('button', { name: 'Add task' }).click();
    await expect
      .poll(() => offline.getByRole('status').filter({ hasText: 'Offline · 1 change waiting' }).first().isVisible())
      .toBe(true);
    await offlineContext.setOffline(false);
    await offline.evaluate(() => window.dispatchEvent(new Event('online')));
    await expect
      .poll(() => offline.getByText('Everything is synced').first().isVisible(), { timeout: 15_000 })
      .toBe(true);
    await offline.close();
  });

  test("opens the Pop-out window, whose Correct button moves the main page's counter", async () => {
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Focus' }).click();
    const before = Number(await page.locator('#count-correct').textContent());
    const popOut = page.getByRole('button', { name: 'Pop out' });
    expect(await popOut.isVisible()).toBe(true);
    const [pip] = await Promise.all([first.waitForEvent('page'), popOut.click()]);
    await pip.getByRole('button', { name: 'Correct', exact: true }).click();
    await expect.poll(() => page.locator('#count-correct').textContent()).toBe(String(before + 1));
    expect(await pip.locator('#pop-correct').textContent()).toBe(String(before + 1));
    await expect.poll(async () => (await pipState()).attempts.correct).toBe(before + 1);
  });

  test("shows another student's handle as a field error, then saves a free handle and a resized avatar", async () => {
    await accountSession(studyhall.url, 'ivo@example.com', 'ivo-password-12'); // his handle is "ivo"
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Profile' }).click();
    const handle = page.getByLabel('Handle');
    await expect.poll(() => handle.inputValue()).toBe('nora');
    await handle.fill('ivo');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect
      .poll(() => page.locator('#handle-error').textContent())
      .toBe('Another student already has this handle. Try another one.');
    expect(await handle.getAttribute('aria-invalid')).toBe('true');

    await handle.fill('nora_chem');
    await page.getByLabel('Display name').fill('Nora');
    // A 2x1 PNG: the page crops it to a square and resizes it before sending.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGMwCTz+YYsNAApkAy2s9iRSAAAAAElFTkSuQmCC',
      'base64',
    );
    await page.locator('input[type="file"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.getByText('New picture chosen; save to use it.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.getByText('Your profile is saved.').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.locator('img.avatar').getAttribute('src')).toMatch(
      /^\/__backend\/storage\/v1\/object\/public\/avatars\/[0-9a-f-]{36}\/avatar-\d+\.(webp|png)$/,
    );
    const avatar = await fetch(`${studyhall.url}${await page.locator('img.avatar').getAttribute('src')}`);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get('content-type')).toMatch(/^image\/(webp|png)/);
  });

  test('has no serious or critical axe violation on any screen, light or dark', async () => {
    test.setTimeout(240_000);
    const session = await storedSession(page);
    const looks = [
      { colorScheme: 'light', viewport: { width: 1280, height: 800 } },
      { colorScheme: 'dark', viewport: { width: 1280, height: 800 } },
      { colorScheme: 'light', viewport: { width: 390, height: 844 } },
      { colorScheme: 'dark', viewport: { width: 390, height: 844 } },
    ] as const;
    // One browser for every look, each screen loaded once and switched through the four looks (the
    // app's themes and layouts are CSS media queries, which a page switched to a look follows, as a
    // phone turned or a system switched to dark does): a page load per screen, not per look.
    const signedIn = await signedInContext(browser, session, {
      colorScheme: looks[0].colorScheme,
      viewport: looks[0].viewport,
      reducedMotion: 'reduce',
    });
    const screen = await newPage(signedIn);
    const signedOut = await context({ colorScheme: looks[0].colorScheme, viewport: looks[0].viewport });
    const welcome = await newPage(signedOut);
    const inEveryLook = async (page: Page, where: string) => {
      for (const { colorScheme, viewport } of looks) {
        await inLook(page, colorScheme, viewport);
        expect(await axeFindings(page, `${where} ${colorScheme} ${viewport.width}`)).toEqual([]);
      }
    };
    let firstVisit = true;
    for (const route of ['/focus', '/stats', '/backups', '/profile', '/settings', '/no-such-page']) {
      await screen.goto(`${app}${route}`);
      const restore = screen.getByRole('dialog', { name: 'Restore your backup on this device?' });
      // A new browser is offered the backup once the app has asked the server; once declined,
      // that browser is not offered it again.
      if (firstVisit) await screen.waitForLoadState('networkidle');
      firstVisit = false;
      if (await restore.isVisible()) await restore.getByRole('button', { name: 'Not now' }).click();
      await screen.locator('main h1').first().waitFor();
      await inEveryLook(screen, route);
    }
    await welcome.goto(`${app}/focus`);
    await welcome.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    await inEveryLook(welcome, 'welcome');
    await signedIn.close();
  });
});

test.describe('the update dialog on a checkout with local changes', () => {
  test('lists the changed files, stashes them on confirmation, and reloads into the new version', async () => {
    test.setTimeout(90_000);
    const work = await makeTempDir('update-ui');
    const bare = path.join(work.dir, 'remote.git');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
    const checkout = await makeFixtureRepo(path.join(work.dir, 'checkout'));
    await writeFile(path.join(checkout, 'NOTES.md'), 'my notes\n');
    runGit(checkout, 'add', 'NOTES.md');
    runGit(checkout, 'commit', '--quiet', '-m', 'Add notes');
    runGit(checkout, 'remote', 'add', 'origin', bare);
    runGit(checkout, 'push', '--quiet', '-u', 'origin', 'main');
    const dev = path.join(work.dir, 'dev');
    execFileSync('git', ['clone', '--quiet', bare, dev]);
    runGit(dev, 'config', 'user.email', 'dev@example.com');
    runGit(dev, 'config', 'user.name', 'Dev');
    await writeFile(path.join(dev, 'CHANGELOG.md'), 'A newer version\n');
    runGit(dev, 'add', '.');
    runGit(dev, 'commit', '--quiet', '-m', 'A newer version');
    runGit(dev, 'push', '--quiet', 'origin', 'main');
    // The real app, served by a gateway whose checkout is the temp repository (dist is ignored by git).
    await cp(path.join(repoRoot, 'web', 'dist'), path.join(checkout, 'web', 'dist'), { recursive: true });
    await writeFile(path.join(checkout, 'NOTES.md'), 'my notes, edited\n'); // the local change
    const backendLine = /studyhall: backend (http:\/\/127\.0\.0\.1:\d+)/.exec(studyhall.output());
    const clientConfig = (await (await fetch(`${studyhall.url}/api/client-config`)).json()) as { anon_key: string };
    const { app: gateway } = await buildGateway({
      repoDir: checkout,
      config: testConfig(path.join(work.dir, 'logs'), {
        update: {
          remote: 'origin',
          branch: undefined,
          installCommand: 'echo install',
          buildCommand: 'echo build',
          restart: 'none',
        },
      }),
      backend: {
        url: backendLine?.[1] ?? 'http://127.0.0.1:1',
        anonKey: clientConfig.anon_key,
        serviceRoleKey: undefined,
      },
    });
    const address = await gateway.listen({ host: '127.0.0.1', port: 0 });
    const updateProxy = await startCspProxy(address);
    try {
      const session = await accountSession(studyhall.url, EMAIL, PASSWORD);
      const signedIn = await signedInContext(browser, session);
      const page = await newPage(signedIn);
      await page.goto(`${updateProxy.url}/settings`);
      // An offer comes only for a backup holding what the server lacks; declined whenever it shows.
      const offer = page.getByRole('dialog', { name: 'Restore your backup on this device?' });
      await page.addLocatorHandler(offer, () => offer.getByRole('button', { name: 'Not now' }).click());
      const fromSha = runGit(checkout, 'rev-parse', 'HEAD');
      await page.getByRole('button', { name: 'Update now' }).click();
      const dialog = page.getByRole('dialog', { name: 'Update with local changes?' });
      await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true);
      expect(await dialog.getByRole('list', { name: 'Changed files' }).textContent()).toContain('NOTES.md');
      const reloaded = page.waitForEvent('load', { timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Keep my changes aside and update' }).click();
      await expect.poll(() => page.getByText('This page reloads by itself').isVisible()).toBe(true);
      await reloaded;
      expect(runGit(checkout, 'rev-parse', 'HEAD')).not.toBe(fromSha);
      expect(runGit(checkout, 'stash', 'list')).toMatch(/studyhall/);
      expect(runGit(checkout, 'status', '--porcelain')).toBe('');
    } finally {
      await updateProxy.close();
      await gateway.close();
      await work.remove();
    }
  });
});

test.describe('the Content-Security-Policy', () => {
  test('was in force on every page above (sent by the gateway or the test proxy) and nothing violated it', () => {
    expect(violations).toEqual([]);
  });
});

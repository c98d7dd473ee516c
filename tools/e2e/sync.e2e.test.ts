// The server holds a student's history and the app tells the truth about syncing, in Debian's
// Chromium against a real `npm start`: a session finished on device A whose tab closes at once is
// in device B's Stats within 5 s of B opening, without a restore; with the server unreachable the
// app says "Offline" within 5 s, two sessions finished then wait through a reload and arrive once
// when the server is back; and the sync line never says "synced" while a change waits. The server
// is made unreachable by the proxy in front of it (every connection cut and refused), which is what
// a stopped server looks like to the browser.
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  accountSession,
  signedInContext,
  type CspProxy,
  type RunningStudyhall,
  type SessionJson,
} from './app-driver.ts';
import { DEVICES } from './browser.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { pageClockLag } from './page-clock.ts';

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });

const EMAIL = 'sync-student@example.com';
const PASSWORD = 'sync-password-1';

let studyhall: RunningStudyhall;
let proxy: CspProxy;
let app: string;
let userId: string;
/** The lag of every device's page clock behind the server, at least 27 minutes (page-clock.ts). */
let pageLag = 0;
const MINUTE = 60_000;
const shots = path.join(process.cwd(), '.tmp', 'screenshots', 'sync');
/** The devices below are opened in this browser. */
let openDevice: (behindMs: number, session: SessionJson) => Promise<{ context: BrowserContext; page: Page }>;

test.beforeAll(async ({ studyhall: server, cspProxy, browser }) => {
  studyhall = server;
  proxy = cspProxy;
  app = cspProxy.url;
  userId = (await accountSession(studyhall.url, EMAIL, PASSWORD)).user.id;
  pageLag = pageClockLag({ behindMinutes: 27, spanMinutes: 45 });
  openDevice = async (behindMs, session) => {
    const context = await signedInContext(browser, session, { ...DEVICES.desktop });
    // Sessions are finished by fast-forwarding the page's clock; starting behind keeps their end
    // before the server's now (a session that ends in the future is refused).
    await context.clock.install({ time: Date.now() - behindMs });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return { context, page };
  };
});

/** The student's session rows, counted with the service role (past row-level security). */
async function serverSessions(): Promise<{ id: string; client_id: string | null; minutes: number }[]> {
  const keys = await studyhall.keys();
  const answer = await fetch(
    `${studyhall.url}/__backend/rest/v1/study_sessions?select=id,client_id,minutes&user_id=eq.${userId}`,
    { headers: { apikey: keys.serviceRoleKey, authorization: `Bearer ${keys.serviceRoleKey}` } },
  );
  if (!answer.ok) throw new Error(`study_sessions answered ${answer.status}: ${await answer.text()}`);
  return answer.json() as never;
}

async function finishOneSession(context: BrowserContext, page: Page, saved: number): Promise<void> {
  await expect.poll(() => page.getByRole('button', { name: 'Start' }).isEnabled(), { timeout: 20_000 }).toBe(true);
  await page.getByRole('button', { name: 'Start' }).click();
  await context.clock.fastForward('26:00');
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Break');
  await page.getByRole('button', { name: 'Finish' }).click();
  await expect
    .poll(() => page.getByRole('status').filter({ hasText: 'Saved 25 min of focus' }).count())
    .toBe(saved > 0 ? 1 : 0);
}

const railLine = (page: Page) => page.getByTestId('sync-status-rail');

/** Records every text of the sync line, across reloads (sessionStorage), to prove it never lied. */
async function recordSyncLine(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen = () => JSON.parse(sessionStorage.getItem('sync-lines') ?? '[]') as string[];
    const note = () => {
      const text = document.querySelector('[data-testid="sync-status-rail"]')?.textContent ?? null;
      const lines = seen();
      if (text && lines.at(-1) !== text) sessionStorage.setItem('sync-lines', JSON.stringify([...lines, text]));
    };
    new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

test.describe('sync between devices and through outages', () => {
  test('shows a session finished on device A, whose tab closed at once, in device B’s Stats within 5 s', async () => {
    test.setTimeout(120_000);
    const a = await openDevice(pageLag, await accountSession(studyhall.url, EMAIL, PASSWORD));
    await a.page.goto(`${app}/focus`);
    await finishOneSession(a.context, a.page, 1);
    await a.page.close();

    await expect.poll(async () => (await serverSessions()).length, { timeout: 10_000 }).toBe(1);

    // On the same clock as A: both count the session on today's study day, at any hour.
    const b = await openDevice(pageLag, await accountSession(studyhall.url, EMAIL, PASSWORD));
    await b.page.goto(`${app}/stats`);
    const opened = Date.now();
    await expect.poll(() => b.page.getByTestId('stat-today').textContent(), { timeout: 5_000 }).toBe('25 min');
    expect(Date.now() - opened).toBeLessThan(5_000);
    await expect.poll(() => railLine(b.page).textContent()).toBe('Everything is synced');
    await b.context.close();
  });

  test('says offline within 5 s, keeps two sessions through a reload, and sends each once when the server is back', async () => {
    test.setTimeout(180_000);
    const before = (await serverSessions()).length;
    // 93 minutes further behind: these sessions end long before the one of the test above began (no overlap).
    const a = await openDevice(pageLag + 93 * MINUTE, await accountSession(studyhall.url, EMAIL, PASSWORD));
    await recordSyncLine(a.context);
    await a.page.goto(`${app}/focus`);
    await expect.poll(() => railLine(a.page).textContent(), { timeout: 20_000 }).toBe('Everything is synced');
    // The service worker serves the app while the server is away.
    await a.page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
    });
    await a.page.screenshot({ path: path.join(shots, 'synced-desktop.png') });

    proxy.setServerDown(true);
    const cut = Date.now();
    await expect.poll(() => railLine(a.page).textContent(), { timeout: 5_000, intervals: [100] }).toBe('Offline');
    expect(Date.now() - cut).toBeLessThan(5_000);
    await expect.poll(() => a.page.getByTestId('offline-banner').textContent()).toContain('Offline.');

    await finishOneSession(a.context, a.page, 1);
    await finishOneSession(a.context, a.page, 1);
    await expect.poll(() => railLine(a.page).textContent()).toBe('Offline · 2 changes waiting');
    await expect
      .poll(() => a.page.getByTestId('offline-banner').textContent())
      .toContain('Offline · 2 changes waiting.');
    await a.page.screenshot({ path: path.join(shots, 'offline-waiting-desktop.png') });
    await a.page.setViewportSize(DEVICES.phone.viewport);
    await a.page.screenshot({ path: path.join(shots, 'offline-waiting-phone.png') });

    await a.page.reload();
    await expect
      .poll(() => a.page.getByTestId('sync-status-phone').textContent(), { timeout: 10_000 })
      .toBe('Offline · 2 changes waiting');
    expect((await serverSessions()).length).toBe(before);

    proxy.setServerDown(false);
    await expect
      .poll(() => a.page.getByTestId('sync-status-phone').textContent(), { timeout: 10_000 })
      .toBe('Everything is synced');
    await a.page.screenshot({ path: path.join(shots, 'synced-phone.png') });
    const rows = await serverSessions();
    expect(rows).toHaveLength(before + 2);
    expect(new Set(rows.map((row) => row.client_id)).size).toBe(rows.length);

    // From the cut until the queue drained, the line never said "synced".
    const lines = await a.page.evaluate(() => JSON.parse(sessionStorage.getItem('sync-lines') ?? '[]') as string[]);
    const cutAt = lines.indexOf('Offline');
    expect(cutAt).toBeGreaterThan(-1);
    const outage = lines.slice(cutAt, -1);
    expect(outage.some((text) => text.includes('waiting'))).toBe(true);
    expect(outage.filter((text) => text.includes('synced'))).toEqual([]);
    expect(lines.at(-1)).toBe('Everything is synced');
    await a.context.close();
  });
});

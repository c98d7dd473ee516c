// What students met when they tried the app on two devices and with a group, walked in Debian's
// Chromium against a real `npm start` (a fresh DATA_DIR, the app's Content-Security-Policy), each
// person or device in a browser context of its own, by role and accessible name, with screenshots
// at 390 and 1280 px (`.tmp/screenshots/journeys`):
// - a device whose sign-in ended elsewhere (a password changed on another device, a ban) says
//   "Signed out on this device — sign in again" by itself within seconds, keeps what is changed
//   meanwhile waiting (never "could not sync", never "Refused by the server"), and signing in
//   again sends it;
// - a second device gets the timer settings and a subject with no session yet, and no restore
//   offer when the backups hold nothing the server lacks; when one does, the newest is offered first
//   beside the richest, with what each holds and adds;
// - deleting a chat message asks "Delete for everyone?" inline, with the focus on the question;
// - a buddy request accepted, declined or cancelled and a buddy removed or blocked reach the other
//   student's page live, a block only as a removal;
// - on a phone, a message's actions are one visible button away and its time is whole;
// - a session finished under a minute keeps its answers for the next one, and says so;
// - the phone remote finishes a session, and says what it can do while idle.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import {
  accountSession,
  signedInContext,
  VIEWPORTS,
  type CspViolation,
  type RunningStudyhall,
  type SessionJson,
} from './app-driver.ts';
import { chromiumLaunchOptions, mapHostToLoopback } from './browser.ts';
import { chatShows, student, type Student } from './community-driver.ts';
import { watchedPage } from './community-fixture.ts';
import { readQrCode, studentContext } from './companion/focus-page.ts';
import { expect, studyhallTest, type ServerFixtures } from './fixtures.ts';
import { pageClockLag } from './page-clock.ts';
import { joinedGroupOfTwo } from './presence-driver.ts';

/** Not `localhost` or `*.localhost`, which Chromium counts as loopback: the students' address. */
const CLASSROOM_HOST = 'classroom.test';
const SIGNED_OUT = 'Signed out on this device — sign in again';
const shots = path.join(repoRoot, '.tmp', 'screenshots', 'journeys');

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });
test.use({ launchOptions: chromiumLaunchOptions([mapHostToLoopback(CLASSROOM_HOST)]) });

let studyhall: RunningStudyhall;
let browser: Browser;
let app: string;
let openPhone: ServerFixtures['phoneRemote'];
const contexts: BrowserContext[] = [];
const violations: CspViolation[] = [];

test.beforeAll(async ({ studyhall: server, browser: chromium, app: address, phoneRemote }) => {
  studyhall = server;
  browser = chromium;
  app = address;
  openPhone = phoneRemote;
  await mkdir(shots, { recursive: true });
});

// Each walk's devices close with it: every open page of the app holds a link to the timer relay,
// and a relay pairing per address is limited (docs/api.md#pairing).
test.afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
});

const password = (who: Student) => `${who.handle}-password-1`;

/**
 * Signing up and in is limited to 10 a minute per address (SECURITY.md), and this file's students
 * all come from this one: a step refused with 429 waits as long as the server says, then again.
 */
async function withinSignInLimit<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const limited = /answered 429: (\{.*\})/.exec((error as Error).message);
      if (!limited?.[1] || attempt === 5) throw error;
      const { retry_after_s: seconds } = JSON.parse(limited[1]) as { retry_after_s?: number };
      await new Promise((resolve) => setTimeout(resolve, ((seconds ?? 5) + 1) * 1000));
    }
  }
}

const newStudent = (name: string, handle: string) => withinSignInLimit(() => student(studyhall.url, name, handle));
const signIn = (email: string, secret: string) => withinSignInLimit(() => accountSession(studyhall.url, email, secret));

/** A device of a student: a context of its own, signed in with `session`. */
async function device(
  session: SessionJson,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await signedInContext(browser, session, { viewport: VIEWPORTS.desktop, ...options });
  contexts.push(context);
  const page = await watchedPage(context, violations);
  return { context, page };
}

/** Both sizes, in the order a student meets them; the page is left at the size it had. */
async function shoot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))),
    );
    await page.screenshot({ path: path.join(shots, `${name}-${label}.png`) });
  }
  if (size) await page.setViewportSize(size);
}

const railLine = (page: Page) => page.getByTestId('sync-status-rail');

async function serviceKey(): Promise<string> {
  return (await studyhall.keys()).serviceRoleKey;
}

/** Rows of a table as the service role reads them (past row-level security). */
async function serverRows<T>(query: string): Promise<T[]> {
  const key = await serviceKey();
  const answer = await fetch(`${studyhall.url}/__backend/rest/v1/${query}`, {
    headers: { apikey: key, authorization: `Bearer ${key}` },
  });
  if (!answer.ok) throw new Error(`${query} answered ${answer.status}: ${await answer.text()}`);
  return answer.json() as Promise<T[]>;
}

/** Opens a route and waits for its heading. */
async function open(page: Page, route: string): Promise<void> {
  await page.goto(`${app}${route}`);
  await page.locator('main h1').first().waitFor();
}

test.describe('2. a device signed out elsewhere', () => {
  test('says so by itself within seconds, keeps what changes meanwhile waiting, and sends it after signing in again', async () => {
    test.setTimeout(180_000);
    const ana = await newStudent('Ana', 'ana_devices');
    const laptop = await device(ana.session);
    // The page's clock runs as the server's; fast-forwarding it stands in for half a minute passing.
    await laptop.context.clock.install();
    await open(laptop.page, '/focus');
    await expect.poll(() => railLine(laptop.page).textContent(), { timeout: 20_000 }).toBe('Everything is synced');

    // Her other device changes the password: the server ends every other session of hers.
    const tablet = await device(await signIn(ana.email, password(ana)));
    await open(tablet.page, '/settings');
    const newPassword = 'a new passphrase for ana';
    const status = await tablet.page.evaluate(
      async ([next, current]) => {
        const stored = JSON.parse(localStorage.getItem('studyhall-auth') ?? '{}') as { access_token: string };
        const config = (await (await fetch('/api/client-config')).json()) as { anon_key: string };
        const answer = await fetch('/__backend/auth/v1/user', {
          method: 'PUT',
          headers: {
            apikey: config.anon_key,
            authorization: `Bearer ${stored.access_token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ password: next, current_password: current }),
        });
        return answer.status;
      },
      [newPassword, password(ana)] as const,
    );
    expect(status).toBe(200);

    // The laptop changes nothing: its health watch asks within 30 s whether it is still signed in.
    await laptop.context.clock.fastForward('00:31');
    const asked = Date.now();
    await expect.poll(() => railLine(laptop.page).textContent(), { timeout: 5_000, intervals: [100] }).toBe(SIGNED_OUT);
    expect(Date.now() - asked).toBeLessThan(5_000);
    const banner = laptop.page.getByTestId('signed-out-banner');
    expect(await banner.textContent()).toContain(`${SIGNED_OUT}.`);
    await shoot(laptop.page, 'signed-out-focus');

    // What she changes now waits; it is never "could not sync".
    await laptop.page.getByLabel('Add a task for today').fill('Flashcards, chapter 5');
    await laptop.page.getByRole('button', { name: 'Add task' }).click();
    await expect
      .poll(() => railLine(laptop.page).textContent(), { timeout: 10_000 })
      .toBe(`${SIGNED_OUT} · 1 change waiting`);
    expect(await banner.textContent()).toContain('1 change made here waits on this device and is sent once you do.');

    await open(laptop.page, '/backups');
    const waiting = laptop.page.getByRole('region', { name: 'Waiting to sync' });
    await expect.poll(() => waiting.textContent()).toContain('Waits for you to sign in again');
    expect(await waiting.textContent()).toContain(`${SIGNED_OUT}.`);
    expect(await laptop.page.locator('main').textContent()).not.toContain('Refused by the server');
    expect(await waiting.getByRole('button', { name: 'Discard' }).count()).toBe(0);
    await shoot(laptop.page, 'signed-out-backups');

    await open(laptop.page, '/community');
    await expect.poll(() => laptop.page.locator('main').textContent(), { timeout: 10_000 }).toContain(SIGNED_OUT);
    expect(await laptop.page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await shoot(laptop.page, 'signed-out-community');

    // A reload keeps the state and her waiting change.
    await laptop.page.reload();
    await expect
      .poll(() => railLine(laptop.page).textContent(), { timeout: 15_000 })
      .toBe(`${SIGNED_OUT} · 1 change waiting`);

    await laptop.page.getByRole('button', { name: 'Sign in again' }).click();
    const dialog = laptop.page.getByRole('dialog', { name: 'Sign in again' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      '1 change made on this device waits here and is sent once you sign in.',
    );
    expect(await dialog.getByLabel('E-mail').inputValue()).toBe(ana.email);
    await dialog.getByLabel('Password').fill('not her password');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBeTruthy();
    await shoot(laptop.page, 'sign-in-again');
    await dialog.getByLabel('Password').fill(newPassword);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => railLine(laptop.page).textContent(), { timeout: 15_000 }).toBe('Everything is synced');
    await expect
      .poll(async () => (await serverRows<{ title: string }>(`user_tasks?select=title&user_id=eq.${ana.id}`)).length)
      .toBe(1);
    // The community page reads again by itself.
    await expect.poll(() => laptop.page.locator('main').textContent(), { timeout: 10_000 }).not.toContain(SIGNED_OUT);
    expect(await laptop.page.getByTestId('signed-out-banner').count()).toBe(0);
  });

  test('says the same after a ban, by itself', async () => {
    test.setTimeout(120_000);
    const ben = await newStudent('Ben', 'ben_banned');
    const laptop = await device(ben.session);
    await laptop.context.clock.install();
    await open(laptop.page, '/focus');
    await expect.poll(() => railLine(laptop.page).textContent(), { timeout: 20_000 }).toBe('Everything is synced');
    const key = await serviceKey();
    const banned = await fetch(`${studyhall.url}/__backend/auth/v1/admin/users/${ben.id}`, {
      method: 'PUT',
      headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ban_duration: '24h' }),
    });
    expect(banned.status).toBe(200);
    await laptop.context.clock.fastForward('00:31');
    await expect.poll(() => railLine(laptop.page).textContent(), { timeout: 5_000, intervals: [100] }).toBe(SIGNED_OUT);
  });
});

test.describe('4. a second device', () => {
  test('gets the timer settings and a subject with no session yet, and no restore offer over them', async () => {
    test.setTimeout(120_000);
    const cleo = await newStudent('Cleo', 'cleo_setup');
    const first = await device(cleo.session);
    await open(first.page, '/settings');
    for (const [label, value] of [
      ['Focus length', '50'],
      ['Break length', '10'],
      ['Focus phases per session', '3'],
      ['Daily goal', '180'],
    ] as const)
      await first.page.getByLabel(label, { exact: true }).fill(value);
    await first.page.getByRole('button', { name: 'Save settings' }).click();
    await first.page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await open(first.page, '/focus');
    await first.page.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await first.page.getByLabel('New subject').fill('Organic chemistry');
    await first.page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => railLine(first.page).textContent(), { timeout: 15_000 }).toBe('Everything is synced');
    // A snapshot of this device is stored too: a backup that holds nothing the server lacks.
    await expect
      .poll(async () => (await serverRows(`user_backups?select=id&user_id=eq.${cleo.id}`)).length, { timeout: 20_000 })
      .toBeGreaterThan(0);

    const second = await device(await signIn(cleo.email, password(cleo)));
    await open(second.page, '/focus');
    await expect
      .poll(() => second.page.locator('.focus-total').textContent(), { timeout: 15_000 })
      .toBe('3 × 50 min focus, 10 min breaks');
    expect(await second.page.getByText('50:00').count()).toBe(1);
    expect(await second.page.getByLabel('Subject').locator('option').allTextContents()).toContain('Organic chemistry');
    await second.page.waitForLoadState('networkidle');
    expect(await second.page.getByRole('dialog').count()).toBe(0);
    await shoot(second.page, 'second-device-focus');
    await open(second.page, '/settings');
    expect(await second.page.getByLabel('Daily goal', { exact: true }).inputValue()).toBe('180');
  });

  test('offers the newest backup first beside the richest, with what each holds, when one adds what the server lacks', async () => {
    test.setTimeout(120_000);
    const dee = await newStudent('Dee', 'dee_backups');
    const day = (offsetDays: number) => new Date(Date.now() - offsetDays * 86_400_000).toISOString().slice(0, 10);
    const settings = { focusMinutes: 25, breakMinutes: 5, cycles: 4, dayOffsetHours: 0, dailyGoalMinutes: 120 };
    const subjects = ['Anatomy', 'Biology', 'Chemistry'].map((name, index) => ({
      id: crypto.randomUUID(),
      name,
      createdAt: index + 1,
    }));
    const task = (title: string, index: number) => ({
      id: crypto.randomUUID(),
      title,
      subjectId: null,
      day: null,
      done: false,
      completedAt: null,
      createdAt: index + 1,
      updatedAt: index + 1,
    });
    const startedAt = Date.now() - 2 * 86_400_000;
    // Older and richer: three subjects and six tasks, no session.
    const older = {
      format: 'studyhall-backup',
      version: 1,
      exported_at: new Date(Date.now() - 5 * 86_400_000).toISOString(),
      subjects,
      tasks: ['Read 1', 'Read 2', 'Read 3', 'Read 4', 'Read 5', 'Read 6'].map(task),
      sessions: [],
      settings,
    };
    // Newer: one session the server never received (made on a device that never synced it).
    const newer = {
      format: 'studyhall-backup',
      version: 1,
      exported_at: new Date().toISOString(),
      subjects: [subjects[0]],
      tasks: [],
      sessions: [
        {
          id: crypto.randomUUID(),
          startedAt,
          endedAt: startedAt + 30 * 60_000,
          minutes: 30,
          subjectId: subjects[0]?.id ?? null,
          subjectName: 'Anatomy',
          taskId: null,
          taskTitle: null,
          correct: 4,
          incorrect: 1,
          skipped: 0,
          studyDay: day(2),
          synced: false,
        },
      ],
      settings,
    };
    for (const payload of [older, newer]) {
      const stored = await fetch(`${studyhall.url}/__auth/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${dee.session.access_token}` },
        body: JSON.stringify({ payload }),
      });
      expect(stored.status).toBeLessThan(300);
    }
    // The older one was stored five days ago (a backup row's time is the server's, set as it arrives).
    const key = await serviceKey();
    const [first] = await serverRows<{ id: string }>(
      `user_backups?select=id&user_id=eq.${dee.id}&order=created_at.asc,id.asc&limit=1`,
    );
    const moved = await fetch(`${studyhall.url}/__backend/rest/v1/user_backups?id=eq.${first?.id}`, {
      method: 'PATCH',
      headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ created_at: older.exported_at }),
    });
    expect(moved.status).toBeLessThan(300);

    const fresh = await device(dee.session);
    await fresh.page.goto(`${app}/focus`);
    const dialog = fresh.page.getByRole('dialog', { name: 'Restore your backup on this device?' });
    await dialog.waitFor({ timeout: 20_000 });
    const offers = dialog.getByRole('listitem');
    expect(await offers.count()).toBe(2);
    expect(await offers.nth(0).getByRole('heading').textContent()).toBe('Your newest backup');
    expect(await offers.nth(0).textContent()).toMatch(/Sessions\s*1, 30 min in total/);
    expect(await offers.nth(0).textContent()).toContain('Adds to this device: 1 session, 1 subject.');
    expect(await offers.nth(1).getByRole('heading').textContent()).toBe('The backup with the most records');
    expect(await offers.nth(1).textContent()).toMatch(/Sessions\s*0/);
    expect(await offers.nth(1).textContent()).toContain('Adds to this device: 3 subjects, 6 tasks.');
    // Each with when it was saved, in the viewer's local time: the newest today, the richest days ago.
    expect(await offers.nth(0).textContent()).not.toBe(await offers.nth(1).textContent());
    await shoot(fresh.page, 'restore-offer');

    await dialog.getByRole('button', { name: 'Add from the newest backup' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(async () => serverRows<{ minutes: number }>(`study_sessions?select=minutes&user_id=eq.${dee.id}`), {
        timeout: 15_000,
      })
      .toEqual([{ minutes: 30 }]);
    expect(await fresh.page.getByLabel('Subject').locator('option').allTextContents()).toContain('Anatomy');

    // Backups shows the same choice, newest first, each replacing the device's data only when chosen.
    await open(fresh.page, '/backups');
    await fresh.page.getByRole('button', { name: 'Restore a backup…' }).click();
    const restore = fresh.page.getByRole('dialog', { name: 'Restore a backup?' });
    await restore.waitFor();
    const choices = restore.getByRole('listitem');
    expect(await choices.count()).toBeGreaterThanOrEqual(2);
    expect(await choices.nth(0).getByRole('heading').textContent()).toBe('Your newest backup');
    expect(await choices.last().getByRole('heading').textContent()).toBe('The backup with the most records');
    expect(await restore.getByRole('button', { name: 'Replace with the newest backup' }).isVisible()).toBe(true);
    await shoot(fresh.page, 'backups-restore-choice');
    await restore.getByRole('button', { name: 'Cancel' }).click();
    await restore.waitFor({ state: 'hidden' });
  });
});

test.describe('5 and 7. a chat message’s actions', () => {
  let ella: Student;
  let finn: Student;
  let groupId = '';

  test.beforeAll(async () => {
    test.setTimeout(60_000);
    ella = await newStudent('Ella', 'ella_chat');
    finn = await newStudent('Finn', 'finn_chat');
    groupId = await joinedGroupOfTwo(studyhall.url, ella, finn, 'Pharmacology Evenings');
  });

  async function groupPage(page: Page): Promise<void> {
    await open(page, `/groups/${groupId}`);
    await expect.poll(() => page.locator('.chat-status').textContent(), { timeout: 15_000 }).toContain('Live');
  }

  test('5. asks “Delete for everyone?” inline, with the focus on the question; Escape backs out, Delete deletes', async () => {
    test.setTimeout(120_000);
    const ellas = await device(ella.session);
    const finns = await device(finn.session);
    await groupPage(ellas.page);
    await groupPage(finns.page);
    const text = 'Meet at 9 in room 4, bring the drug cards';
    await ellas.page.getByRole('textbox', { name: 'Message' }).fill(text);
    await ellas.page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await chatShows(finns.page, text, 5_000);

    const more = ellas.page.getByRole('button', { name: /^Actions for your message “Meet at 9 in room 4/ });
    await more.click();
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    const remove = ellas.page.getByRole('button', { name: 'Delete this message by Ella' });
    await remove.click();
    const confirm = ellas.page.getByRole('group', { name: /Delete for everyone\?/ });
    await confirm.waitFor();
    expect(await ellas.page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(
      'Delete for everyone?',
    );
    await shoot(ellas.page, 'chat-delete-confirm');

    await ellas.page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect
      .poll(() => ellas.page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Delete this message by Ella');
    await ellas.page.keyboard.press('Escape');
    await remove.waitFor({ state: 'detached' });
    await expect.poll(() => more.evaluate((node) => node === document.activeElement)).toBe(true);
    await chatShows(ellas.page, text, 1_000);

    // Keyboard only: Enter opens the row, then Delete, then the confirmation's own Delete.
    await ellas.page.keyboard.press('Enter');
    await remove.focus();
    await ellas.page.keyboard.press('Enter');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await chatShows(ellas.page, 'Message removed', 5_000);
    await chatShows(finns.page, 'Message removed', 5_000);
    expect(await finns.page.locator('.chat-log').textContent()).not.toContain(text);
  });

  test('7. on a phone, each message shows its actions button without a tap, and its time whole', async () => {
    test.setTimeout(120_000);
    const ellas = await device(ella.session);
    await groupPage(ellas.page);
    const text = 'Flashcards at 9? Chapter 12, antibiotics.';
    const next = 'I will bring the green pens.';
    for (const line of [text, next]) {
      await ellas.page.getByRole('textbox', { name: 'Message' }).fill(line);
      await ellas.page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await chatShows(ellas.page, line, 5_000);
    }

    const phone = await device(finn.session, { viewport: VIEWPORTS.phone, isMobile: true, hasTouch: true });
    await groupPage(phone.page);
    await chatShows(phone.page, text, 5_000);
    const message = phone.page.locator('.chat-message', { hasText: text });
    const more = message.getByRole('button', { name: /^Actions for Ella’s message/ });
    expect(await more.evaluate((node) => getComputedStyle(node).opacity)).toBe('1');
    const size = await more.boundingBox();
    expect(size?.width ?? 0).toBeGreaterThanOrEqual(44);
    expect(size?.height ?? 0).toBeGreaterThanOrEqual(44);
    await message.scrollIntoViewIfNeeded();
    await shoot(phone.page, 'chat-phone');

    await more.tap();
    const sent = message.locator('.chat-actions-time');
    await expect.poll(() => sent.textContent()).toMatch(/^Sent today at \d{1,2}:\d{2}(\s?[AP]M)?$/);
    // Whole: the time is as wide as its text, inside the chat's box.
    const log = await phone.page.locator('.chat-log').boundingBox();
    const time = await sent.boundingBox();
    expect(await sent.evaluate((node) => node.scrollWidth <= node.clientWidth + 1)).toBe(true);
    expect(time && log && time.x >= log.x && time.x + time.width <= log.x + log.width).toBe(true);
    expect(await message.getByRole('button', { name: 'Report this message by Ella' }).isVisible()).toBe(true);
    await message.scrollIntoViewIfNeeded();
    await shoot(phone.page, 'chat-phone-actions');

    // With a pointer, the time shows beside a message on hover (the first of a run has it in the
    // run's head), whole, inside the chat's box.
    const desktop = ellas.page.locator('.chat-message', { hasText: next });
    await desktop.hover();
    const beside = desktop.locator('.chat-time');
    await expect.poll(() => beside.evaluate((node) => getComputedStyle(node).opacity)).toBe('1');
    const besideBox = await beside.boundingBox();
    const desktopLog = await ellas.page.locator('.chat-log').boundingBox();
    expect(
      besideBox &&
        desktopLog &&
        besideBox.x >= desktopLog.x &&
        besideBox.x + besideBox.width <= desktopLog.x + desktopLog.width,
    ).toBe(true);
    expect(await beside.textContent()).toMatch(/^\d{1,2}:\d{2}(\s?[AP]M)?$/);
  });
});

test.describe('6. buddy changes, live on both sides', () => {
  test('shows a request arriving, accepted, declined, cancelled and a buddy removed or blocked, without a reload', async () => {
    test.setTimeout(120_000);
    const gus = await newStudent('Gus', 'gus_buddy');
    const hana = await newStudent('Hana', 'hana_buddy');
    const guss = await device(gus.session);
    const hanas = await device(hana.session);
    for (const { page } of [guss, hanas]) {
      await open(page, '/buddies');
      await page.locator('.buddy-grid[data-live="true"], .empty').first().waitFor();
      // A page that reloads loses this mark.
      await page.evaluate(() => ((window as { __kept?: boolean }).__kept = true));
    }
    // Live means at once: the poll behind it comes every 60 s while realtime is up.
    const soon = { timeout: 5_000, intervals: [100] };
    const main = (page: Page) => page.locator('main');
    const requests = (page: Page) => page.getByRole('region', { name: 'Requests' });
    const buddies = (page: Page) => page.getByRole('region', { name: /^Your buddies/ });
    const request = async () => {
      await guss.page.getByLabel('Their handle').fill('hana_buddy');
      await guss.page.getByRole('button', { name: 'Send request' }).click();
      await expect.poll(() => requests(guss.page).textContent(), soon).toContain('waiting for their answer');
      await expect.poll(() => requests(hanas.page).textContent(), soon).toContain('Gus');
    };

    await request();
    expect(await requests(hanas.page).textContent()).toContain('wants to be your buddy');
    await shoot(hanas.page, 'buddies-request-arrives');
    await hanas.page.getByRole('button', { name: 'Accept Gus' }).click();
    await expect.poll(() => buddies(guss.page).textContent(), soon).toContain('Hana');
    expect(await main(guss.page).textContent()).not.toContain('waiting for their answer');
    await shoot(guss.page, 'buddies-accepted-seen-by-sender');

    await hanas.page.getByRole('button', { name: 'More actions for Gus' }).click();
    await hanas.page.getByRole('button', { name: 'Remove buddy' }).click();
    await hanas.page.getByRole('dialog', { name: 'Remove Gus?' }).getByRole('button', { name: 'Remove buddy' }).click();
    await expect.poll(() => main(guss.page).textContent(), soon).toContain('No buddies yet');

    await request();
    await hanas.page.getByRole('button', { name: 'Decline Gus' }).click();
    await expect.poll(() => requests(guss.page).count(), soon).toBe(0);

    await request();
    await guss.page.getByRole('button', { name: 'Cancel your request to Hana' }).click();
    await expect.poll(() => requests(hanas.page).count(), soon).toBe(0);

    // A block reaches Gus exactly as a removal: Hana is gone, and nothing says why.
    await request();
    await hanas.page.getByRole('button', { name: 'Accept Gus' }).click();
    await expect.poll(() => buddies(guss.page).textContent(), soon).toContain('Hana');
    await hanas.page.getByRole('button', { name: 'More actions for Gus' }).click();
    await hanas.page.getByRole('button', { name: 'Block', exact: true }).click();
    await hanas.page.getByRole('dialog', { name: 'Block Gus?' }).getByRole('button', { name: 'Block' }).click();
    await expect.poll(() => main(guss.page).textContent(), soon).toContain('No buddies yet');
    expect((await main(guss.page).textContent())?.toLowerCase()).not.toContain('block');

    for (const { page } of [guss, hanas])
      expect(await page.evaluate(() => (window as { __kept?: boolean }).__kept)).toBe(true);
  });
});

test.describe('8. a session finished under a minute', () => {
  test('keeps its answers on the counters, says so, and saves them with the next session', async () => {
    test.setTimeout(120_000);
    const ida = await newStudent('Ida', 'ida_short');
    const laptop = await device(ida.session);
    // Sessions are finished by fast-forwarding the page's clock; starting behind keeps their end
    // before the server's now (a session that ends in the future is refused).
    await laptop.context.clock.install({ time: Date.now() - pageClockLag({ behindMinutes: 27, spanMinutes: 45 }) });
    await open(laptop.page, '/focus');
    const count = (name: string) =>
      laptop.page.getByRole('button', { name, exact: true }).locator('.counter-value').textContent();
    await laptop.page.getByRole('button', { name: 'Start' }).click();
    for (const name of ['Correct', 'Correct', 'Skip'])
      await laptop.page.getByRole('button', { name, exact: true }).click();
    await laptop.page.getByRole('button', { name: 'Finish' }).click();
    const notice = laptop.page.getByRole('status').filter({ hasText: 'Not saved as a session' });
    await expect
      .poll(() => notice.textContent())
      .toContain(
        'a session needs at least a minute of focus. Your 3 answers stay on the counters and are saved with your next session.',
      );
    expect([await count('Correct'), await count('Incorrect'), await count('Skip')]).toEqual(['2', '0', '1']);
    expect(await laptop.page.getByRole('button', { name: 'Clear answers' }).isVisible()).toBe(true);
    await shoot(laptop.page, 'short-session-kept');

    await laptop.page.getByRole('button', { name: 'Start' }).click();
    await laptop.page.getByRole('button', { name: 'Correct', exact: true }).click();
    await laptop.context.clock.fastForward('26:00');
    await expect.poll(() => laptop.page.getByRole('heading', { level: 1 }).textContent()).toContain('Break');
    await laptop.page.getByRole('button', { name: 'Finish' }).click();
    await laptop.page.getByRole('status').filter({ hasText: 'Saved 25 min of focus' }).waitFor();
    await expect
      .poll(() => serverRows(`study_sessions?select=minutes,correct,incorrect,skipped&user_id=eq.${ida.id}`), {
        timeout: 10_000,
      })
      .toEqual([{ minutes: 25, correct: 3, incorrect: 0, skipped: 1 }]);
  });
});

test.describe('9. the phone remote', () => {
  test('says what it can do while idle, starts a session, and finishes it', async () => {
    test.setTimeout(120_000);
    const email = 'jo_phone@example.com';
    // The focus page at the server's own address. This server listens on loopback only, which no
    // phone opens, so the page is told the LAN address a classroom server has: a name Chromium maps
    // to 127.0.0.1, which the QR code then leads to.
    const phoneAddress = `http://${CLASSROOM_HOST}:${new URL(studyhall.url).port}`;
    const context = await withinSignInLimit(() => studentContext(browser, studyhall.url, email, phoneAddress));
    contexts.push(context);
    await context.clock.install({ time: Date.now() - pageClockLag({ behindMinutes: 27, spanMinutes: 45 }) });
    const focus = await watchedPage(context, violations);

    await focus.goto(`${studyhall.url}/focus`);
    await focus.getByRole('button', { name: 'Start' }).waitFor();
    await focus.getByRole('button', { name: /^Phone remote/ }).click();
    const panel = focus.getByRole('region', { name: 'Phone remote' });
    await panel.getByRole('img', { name: /^QR code/ }).waitFor();
    const link = await readQrCode(focus);
    await focus.keyboard.press('Escape');

    expect(link).toBe(`${phoneAddress}/companion/#code=${link.split('#code=')[1] ?? ''}`);
    // At a name only Chromium's resolver knows, the gateway's own policy holds (the test adds none).
    const phone = await openPhone(link, { addCsp: false });
    contexts.push(phone.context);
    const button = (name: string) => phone.page.getByRole('button', { name, exact: true });
    await phone.page
      .getByText('This phone starts, pauses, resumes and finishes it, and counts your answers.')
      .waitFor();
    expect(await phone.page.getByText(/Start a session on the focus page/).count()).toBe(0);
    expect(await button('Finish').isDisabled()).toBe(true);
    await expect.poll(() => button('Start').isEnabled()).toBe(true);
    await shoot(phone.page, 'phone-idle');

    await button('Start').tap();
    await focus.getByRole('button', { name: 'Pause' }).waitFor();
    await button('Correct').tap();
    await expect.poll(() => focus.getByRole('button', { name: 'Correct', exact: true }).textContent()).toContain('1');
    await expect.poll(() => button('Finish').isEnabled()).toBe(true);
    await context.clock.fastForward('26:00');
    await expect.poll(() => focus.getByRole('heading', { level: 1 }).textContent()).toContain('Break');
    await expect.poll(() => phone.page.locator('.phase').textContent(), { timeout: 10_000 }).toContain('Break');
    await shoot(phone.page, 'phone-running');

    await button('Finish').tap();
    await focus.getByRole('status').filter({ hasText: 'Saved 25 min of focus' }).waitFor();
    await expect.poll(() => phone.page.locator('.phase').textContent(), { timeout: 10_000 }).toBe('No session');
    expect(await button('Finish').isDisabled()).toBe(true);
    const [user] = await serverRows<{ id: string }>(`users?select=id&username=eq.${encodeURIComponent(email)}`);
    const userId = user?.id ?? '';
    await expect
      .poll(() => serverRows(`study_sessions?select=minutes,correct&user_id=eq.${userId}`), { timeout: 10_000 })
      .toEqual([{ minutes: 25, correct: 1 }]);
    expect(await phone.problems()).toEqual([]);
  });
});

test.describe('under the app’s Content-Security-Policy', () => {
  test('met no violation on any page above', () => {
    expect(violations).toEqual([]);
  });
});

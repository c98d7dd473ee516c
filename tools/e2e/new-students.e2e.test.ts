// New students try the app as they would, in Debian's Chromium against a real `npm start` at the
// loopback address (embedded localbase, no SMTP_URL, so auth mail stays in its outbox):
// - Mira signs up on her phone: a common password is refused as she types, before anything is
//   sent, and the refusal goes the moment she types a strong one; her first load asks for her
//   backups and gets an empty list, not a 404 in the console.
// - On her laptop, "Forgot password?" says that this server sends no mail and the link waits with
//   whoever runs it, in one sentence for her address and for one nobody uses; a wrong log-in is
//   "wrong e-mail or password" for both as well, and the app never asks who is registered.
// - Cleo, suspended for a week, is told so with the date and time it ends, in local time, and whom
//   to ask, but only with her right password: a wrong one reads as for anybody.
// - Ana and Bo, in one group, on two browsers: chat, the board and the leaderboard name each of
//   them the same way; the privacy page names only the leaderboards the app shows.
// - Mira's timer settings are in "Download my data"; deleting her account asks for her password,
//   refuses a wrong one, and lands on / saying the account was deleted.
// - The phone remote, once built, is not built again, and is served.
// Each new screen passes axe; screenshots at 390 and 1280 px, light and dark, go to
// .tmp/new-student-screens/ for a person to look at.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import { ensureViteBuild, staleReason, VITE_BUILDS } from '../build/vite-build.mjs';
import { signedInContext, VIEWPORTS, type RunningStudyhall, type SessionJson } from './app-driver.ts';
import { expectAxeClean } from './axe.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { asStudent, chatShows, enroll, type Student } from './community-driver.ts';

const SHOTS = path.join(repoRoot, '.tmp', 'new-student-screens');
const MIRA = { email: 'mira@example.com', password: 'violet kettle 42 harbor' };
const WRONG = 'Wrong e-mail or password. Check both, or choose “Forgot password?” to set a new one.';

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });

let studyhall: RunningStudyhall;
let localbaseUrl: string;
let keys: { accessToken: string; anonKey: string; serviceRoleKey: string };
let browser: Browser;
const contexts: BrowserContext[] = [];
/** Mira's phone, signed in from her sign-up until she deletes her account. */
let miraPhone: Page;

async function newPage(viewport: { width: number; height: number }, context?: BrowserContext): Promise<Page> {
  const owner = context ?? (await browser.newContext({ viewport, acceptDownloads: true }));
  contexts.push(owner);
  const page = await owner.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/**
 * Sign-ups, log-ins, reset requests and password grants from one address share a budget of 10 a
 * minute (docs/api.md); every attempt of this file comes from 127.0.0.1, so it waits its turn
 * rather than be refused.
 */
const attempts: number[] = [];
async function spendCredentialAttempt(): Promise<void> {
  for (;;) {
    const now = Date.now();
    while (attempts.length > 0 && (attempts[0] ?? 0) < now - 62_000) attempts.shift();
    if (attempts.length < 9) break;
    await new Promise((resolve) => setTimeout(resolve, (attempts[0] ?? now) + 62_000 - now));
  }
  attempts.push(Date.now());
}

/** The page (or one part of it) at 390 and 1280 px, light and dark, for a person to look at. */
async function screenshots(page: Page, name: string, locator?: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const size = page.viewportSize() ?? VIEWPORTS.desktop;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      const file = path.join(SHOTS, `${name}-${width}-${colorScheme}.png`);
      if (locator) await page.locator(locator).screenshot({ path: file });
      else await page.screenshot({ path: file, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}

async function service(method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${localbaseUrl}${url}`, {
    method,
    headers: {
      apikey: keys.serviceRoleKey,
      authorization: `Bearer ${keys.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * An account made by the server's owner (the auth admin API, confirmed) and signed in straight at
 * localbase, then bootstrapped by the gateway as a first log-in would: none of it spends the
 * gateway's budget of credential attempts, which the browser steps need.
 */
async function accountOf(email: string, password: string): Promise<Student> {
  const created = await service('POST', '/auth/v1/admin/users', { email, password, email_confirm: true });
  expect(created.status, await created.clone().text()).toBe(200);
  const granted = await fetch(`${localbaseUrl}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: keys.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(granted.status).toBe(200);
  const session = (await granted.json()) as SessionJson;
  const bootstrap = await fetch(`${studyhall.url}/__auth/bootstrap`, {
    headers: { authorization: `Bearer ${session.access_token}` },
  });
  const { profile } = (await bootstrap.json()) as { profile: { handle: string } };
  return { name: profile.handle, handle: profile.handle, email, session, id: session.user.id };
}

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByRole('tab', { name: 'Log in', exact: true }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await spendCredentialAttempt();
  await page.getByRole('button', { name: 'Log in to my account', exact: true }).click();
}

/** The form's notice after a refused log-in. */
async function refusal(page: Page): Promise<string> {
  const notice = page.locator('#welcome-form .notice');
  await notice.waitFor();
  return ((await notice.locator('p').textContent()) ?? '').trim();
}

const signedIn = (page: Page) => page.getByRole('button', { name: 'Start' }).waitFor({ timeout: 20_000 });

test.beforeAll(async ({ studyhall: server, browser: chromium }) => {
  studyhall = server;
  browser = chromium;
  localbaseUrl = studyhall.localbaseUrl;
  keys = await studyhall.keys();
});

test.afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
});

test.describe('Mira, a new student, on her phone', () => {
  let phone: Page;
  const failed: string[] = [];
  const consoleErrors: string[] = [];

  test('11: is told a common password is too common as she types, before anything is sent, and the word goes once a strong one is typed', async () => {
    test.setTimeout(90_000);
    phone = await newPage(VIEWPORTS.phone);
    miraPhone = phone;
    const signUps: Request[] = [];
    phone.on('request', (request) => {
      if (request.url().endsWith('/__auth/signup')) signUps.push(request);
    });
    phone.on('response', (response) => {
      if (response.status() >= 400)
        failed.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await phone.goto(`${studyhall.url}/`);
    await phone.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    expect(await phone.getByRole('tab', { name: 'Create account' }).getAttribute('aria-selected')).toBe('true');
    await phone.getByLabel('E-mail').fill(MIRA.email);
    const password = phone.getByLabel('Password', { exact: true });
    const message = phone.locator('#password-message');
    expect(await message.textContent()).toMatch(/^At least 8 characters, not a common password/);
    await password.pressSequentially('password', { delay: 40 });
    await expect.poll(() => message.textContent()).toMatch(/^Too common: this password is on the lists/);
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(await password.getAttribute('aria-describedby')).toBe('password-message');
    expect(await message.evaluate((node) => node.closest('[aria-live]')?.getAttribute('aria-live'))).toBe('polite');
    expect(signUps).toHaveLength(0);
    await expectAxeClean(phone, 'sign-up, a common password typed');
    await screenshots(phone, 'signup-too-common');

    // She goes on typing: the refusal goes at once, and says the new one is fine.
    await password.pressSequentially(' kettle 42 harbor', { delay: 40 });
    await expect.poll(() => message.textContent()).toBe('Long enough, and not on the lists of common passwords.');
    expect(await password.getAttribute('aria-invalid')).toBeNull();
    expect(await phone.getByText('Too common').count()).toBe(0);
    await screenshots(phone, 'signup-strong');
    await password.fill(MIRA.password);
    await expect.poll(() => message.textContent()).toBe('Long enough, and not on the lists of common passwords.');

    await spendCredentialAttempt();
    // What the restore offer reads first: her backups, newest first (web/src/lib/backup-reader.ts).
    const backups = phone.waitForResponse((response) =>
      response.url().includes('/rest/v1/user_backups?select=id,created_at,source,richness&'),
    );
    await phone.getByRole('button', { name: 'Create my account', exact: true }).click();
    await signedIn(phone);
    expect(signUps).toHaveLength(1);

    // 12: her first load asks for her backups; she has none, which is an answer, not an error.
    const answer = await backups;
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toEqual([]);
    await phone.waitForTimeout(1000);
    expect(failed).toEqual([]);
    expect(consoleErrors.filter((text) => /404|Failed to load resource/.test(text))).toEqual([]);
  });

  test('12: finds her timer settings in "Download my data"', async () => {
    test.setTimeout(90_000);
    await phone.goto(`${studyhall.url}/settings`);
    await phone.getByLabel('Focus length').fill('50');
    await phone.getByRole('button', { name: 'Save settings' }).click();
    await phone.getByText('Settings saved.').waitFor();
    await phone.goto(`${studyhall.url}/backups`);
    await phone.getByRole('button', { name: 'Back up now' }).click();
    await expect
      .poll(() => phone.getByTestId('last-backup').textContent(), { timeout: 20_000 })
      .toMatch(/^Last backup/);
    await phone.goto(`${studyhall.url}/settings`);
    await phone.getByText(/timer settings \(as last backed up\)/).waitFor();
    const [download] = await Promise.all([
      phone.waitForEvent('download'),
      phone.getByRole('button', { name: 'Download my data' }).click(),
    ]);
    const file = JSON.parse(await readFile((await download.path()) ?? '', 'utf8')) as {
      timer_settings: { saved_at: string; settings: { focusMinutes: number; breakMinutes: number } } | null;
    };
    expect(file.timer_settings?.settings).toMatchObject({ focusMinutes: 50, breakMinutes: 5 });
    expect(Date.now() - Date.parse(file.timer_settings?.saved_at ?? '')).toBeLessThan(5 * 60_000);
  });
});

test.describe('Mira on her laptop, signed out', () => {
  let laptop: Page;
  const checks: string[] = [];

  test('1: "Forgot password?" says the server sends no mail and the link waits with whoever runs it, alike for every address', async () => {
    test.setTimeout(150_000);
    laptop = await newPage(VIEWPORTS.desktop);
    laptop.on('request', (request) => {
      if (request.url().endsWith('/__auth/check')) checks.push(request.url());
    });
    await laptop.goto(`${studyhall.url}/`);
    await laptop.getByRole('tab', { name: 'Log in', exact: true }).click();
    await laptop.getByRole('link', { name: 'Forgot password?' }).click();
    await laptop.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await laptop.getByText(/This server sends no e-mail/).waitFor();
    expect(await laptop.locator('main').textContent()).not.toContain('We will send you a link');
    expect(await laptop.getByText(/This server sends no e-mail/).textContent()).toBe(
      'Enter the e-mail address of your account. This server sends no e-mail: the link to set a new password waits with the person who runs this studyhall server.',
    );
    await expectAxeClean(laptop, 'forgot password without mail');
    await screenshots(laptop, 'forgot-password-no-mail');

    const answers: string[] = [];
    for (const address of ['nobody@example.com', MIRA.email]) {
      await laptop.getByLabel('E-mail').fill(address);
      await spendCredentialAttempt();
      await laptop.getByRole('button', { name: 'Ask for a reset link' }).click();
      const said = laptop.getByText(`If an account exists for ${address},`);
      await said.waitFor();
      answers.push(((await said.textContent()) ?? '').replace(address, '<address>'));
    }
    expect(answers[0]).toBe(
      'If an account exists for <address>, its reset link is now waiting on this server. Ask the person who runs this studyhall server for it, and open it within an hour.',
    );
    expect(answers[1]).toBe(answers[0]);
    await expectAxeClean(laptop, 'forgot password without mail, asked');
    await screenshots(laptop, 'forgot-password-asked');
    // The link is where the sentence says: in the outbox the person who runs the server reads.
    const outbox = await fetch(`${localbaseUrl}/v1/projects/local/auth/outbox`, {
      headers: { authorization: `Bearer ${keys.accessToken}` },
    });
    const { messages } = (await outbox.json()) as { messages: { to: string; link: string | null }[] };
    expect(messages.filter((mail) => mail.to === MIRA.email && mail.link)).toHaveLength(1);
    expect(messages.filter((mail) => mail.to === 'nobody@example.com')).toHaveLength(0);
  });

  test('10: a refused log-in is "wrong e-mail or password" for her address and for one nobody uses', async () => {
    test.setTimeout(150_000);
    await laptop.getByRole('link', { name: 'Back to log in' }).click();
    await logIn(laptop, MIRA.email, 'not my password at all');
    const forHers = await refusal(laptop);
    await screenshots(laptop, 'login-wrong');
    await laptop.reload();
    await logIn(laptop, 'nobody@example.com', 'not my password at all');
    const forNobody = await refusal(laptop);
    expect(forHers).toBe(WRONG);
    expect(forNobody).toBe(forHers);
    expect(await laptop.getByRole('button', { name: 'Create an account' }).count()).toBe(0);
    expect(checks).toEqual([]);
    await expectAxeClean(laptop, 'log-in refused');
  });
});

test.describe('Cleo, suspended for a week', () => {
  test('3: is told her account is suspended, until when in local time and whom to ask, only with her right password', async () => {
    test.setTimeout(150_000);
    const cleo = await accountOf('cleo@example.com', 'amber meadow crossing 9');
    const banned = await service('PUT', `/auth/v1/admin/users/${cleo.id}`, { ban_duration: '168h' });
    const bannedUntil = ((await banned.json()) as { banned_until: string }).banned_until;
    const page = await newPage(VIEWPORTS.phone);
    await page.goto(`${studyhall.url}/`);
    await logIn(page, cleo.email, 'not her password at all');
    expect(await refusal(page)).toBe(WRONG);
    await page.reload();
    await logIn(page, cleo.email, 'amber meadow crossing 9');
    const until = await page.evaluate(
      (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' }),
      bannedUntil,
    );
    await expect
      .poll(() => refusal(page))
      .toBe(
        `This account is suspended until ${until}, so it cannot sign in. To talk about it, ask the person who runs this studyhall server.`,
      );
    expect(await page.getByRole('button', { name: 'Create an account' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
    await expectAxeClean(page, 'suspended');
    await screenshots(page, 'login-suspended');
  });
});

test.describe('Ana and Bo, in one group, on two browsers', () => {
  let ana: Student;
  let bo: Student;
  let groupId: string;
  let anaPage: Page;
  let boPage: Page;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    ana = await accountOf('ana@example.com', 'ana-password-lamp-7');
    bo = await accountOf('bo_park@example.com', 'bo-password-river-8');
    for (const student of [ana, bo]) {
      await enroll(
        studyhall.url,
        student,
        { shareQuestionCounts: true, shareCurrentSubject: true },
        { consented_at: new Date().toISOString() },
      );
      await asStudent(studyhall.url, student, '/rest/v1/rpc/record_study_session', {
        body: {
          p_client_id: crypto.randomUUID(),
          p_started_at: new Date(Date.now() - 30 * 60_000).toISOString(),
          p_minutes: 25,
          p_subject_id: 'anatomy',
          p_subject_name: 'Anatomy',
          p_task_id: null,
          p_task_title: null,
          p_correct: student === ana ? 4 : 2,
          p_incorrect: 0,
          p_skipped: 0,
        },
      });
    }
    const [group] = await asStudent<{ id: string }[]>(studyhall.url, ana, '/rest/v1/groups', {
      body: { name: 'Anatomy study hall', join_policy: 'open', created_by: ana.id },
      prefer: 'return=representation',
    });
    groupId = group?.id ?? '';
    await asStudent(studyhall.url, bo, '/rest/v1/rpc/community_join_group', { body: { p_group_id: groupId } });
    anaPage = await newPage(
      VIEWPORTS.desktop,
      await signedInContext(browser, ana.session, { viewport: VIEWPORTS.desktop }),
    );
    boPage = await newPage(VIEWPORTS.phone, await signedInContext(browser, bo.session, { viewport: VIEWPORTS.phone }));
  });

  test('12: chat, the board and the leaderboard name each of them the same way, the handle as it is', async () => {
    test.setTimeout(90_000);
    expect([ana.handle, bo.handle]).toEqual(['ana', 'bo_park']);
    for (const page of [anaPage, boPage]) {
      await page.goto(`${studyhall.url}/groups/${groupId}`);
      await page.getByRole('heading', { level: 1, name: 'Anatomy study hall' }).waitFor();
      await expect.poll(() => page.locator('.chat-status').textContent(), { timeout: 15_000 }).toContain('Live');
    }
    await anaPage.getByRole('textbox', { name: 'Message' }).fill('Brachial plexus at 9?');
    await anaPage.getByRole('textbox', { name: 'Message' }).press('Enter');
    await chatShows(boPage, 'Brachial plexus at 9?', 5000);
    await boPage.getByRole('textbox', { name: 'Message' }).fill('Yes, with the muscle table.');
    await boPage.getByRole('textbox', { name: 'Message' }).press('Enter');
    await chatShows(anaPage, 'Yes, with the muscle table.', 5000);

    for (const [page, other] of [
      [boPage, ana],
      [anaPage, bo],
    ] as const) {
      const inChat = await page.locator('.chat-run:not(.is-mine) .chat-run-head strong').first().textContent();
      const onBoard = page.getByRole('region', { name: 'Studying now' });
      const onLeaderboard = page.locator('table.leaderboard tbody tr').filter({ hasText: other.handle });
      await expect.poll(() => onLeaderboard.count(), { timeout: 15_000 }).toBe(1);
      const leaderboardName = await onLeaderboard
        .locator('td')
        .nth(1)
        .evaluate((cell) => cell.firstChild?.textContent);
      expect(inChat).toBe(other.handle);
      expect(leaderboardName).toBe(other.handle);
      expect(await onBoard.textContent()).toContain(other.handle);
      expect(await page.locator('main').textContent()).not.toContain(`@${other.handle}`);
    }
    await expectAxeClean(boPage, 'group page');
    await screenshots(boPage, 'group-names');
  });

  test('12: the privacy page names only the leaderboards the app shows', async () => {
    test.setTimeout(60_000);
    await boPage.goto(`${studyhall.url}/settings/privacy`);
    await boPage.getByRole('heading', { level: 1, name: 'Privacy' }).waitFor();
    const text = (await boPage.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/everyone's/i);
    expect(text).toContain("Your groups' leaderboards rank you by points");
    expect(text).toContain('other students signed in to this server can also read those points');
    await screenshots(boPage, 'privacy-leaderboards', 'section[aria-labelledby="summary-title"]');
  });
});

test.describe('Mira deletes her account', () => {
  test('10: is asked for her password, a wrong one deletes nothing, and she lands on / told the account was deleted', async () => {
    test.setTimeout(240_000);
    const page = miraPhone;
    await page.goto(`${studyhall.url}/settings`);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' });
    const word = ((await dialog.locator('label strong').textContent()) ?? '').trim();
    expect(word).toBe('mira');
    await dialog.getByLabel(/to confirm/).fill(word);
    const confirm = dialog.getByRole('button', { name: 'Delete my account', exact: true });
    await confirm.click();
    await expect
      .poll(() => dialog.locator('#delete-password-message').textContent())
      .toBe('Enter your password to delete your account.');
    await dialog.getByLabel('Your password').fill('not my password at all');
    await spendCredentialAttempt();
    await confirm.click();
    await expect
      .poll(() => dialog.locator('#delete-password-message').textContent())
      .toBe('That is not the password of this account. Nothing was deleted.');
    expect(await dialog.getByLabel('Your password').getAttribute('aria-invalid')).toBe('true');
    await expectAxeClean(page, 'delete dialog, wrong password');
    await screenshots(page, 'delete-wrong-password', 'dialog[open]');
    expect(new URL(page.url()).pathname).toBe('/settings');

    await dialog.getByLabel('Your password').fill(MIRA.password);
    await spendCredentialAttempt();
    await confirm.click();
    const farewell = page.getByText(`The account ${MIRA.email} was deleted`);
    await farewell.waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await farewell.textContent()).toBe(
      `The account ${MIRA.email} was deleted, with everything of it on this server and on this device.`,
    );
    await page.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    await expectAxeClean(page, 'welcome after deletion');
    await screenshots(page, 'deleted-welcome');
    expect(await page.evaluate(() => localStorage.getItem('studyhall-auth'))).toBeNull();

    await logIn(page, MIRA.email, MIRA.password);
    expect(await refusal(page)).toBe(WRONG);
    expect(await page.getByText(/was deleted/).count()).toBe(0);
  });
});

test.describe('the phone remote', () => {
  test('12: once built, is fresh for the next start, and is served', async () => {
    test.setTimeout(120_000);
    await ensureViteBuild(VITE_BUILDS.companion);
    expect(await staleReason(VITE_BUILDS.companion)).toBeUndefined();
    expect(await ensureViteBuild(VITE_BUILDS.companion)).toBe(false);
    const page = await newPage(VIEWPORTS.phone);
    await page.goto(`${studyhall.url}/companion/`);
    await expect.poll(() => page.title()).toBe('studyhall remote');
  });
});

// A student manages her account in Debian's Chromium against a real `npm start` (embedded
// localbase, mail kept in its outbox): she signs up (a common password is refused with the reason),
// signs out, asks for a recovery link with "Forgot password?" (which says the link waits on the
// server, as it sends no mail), follows the link read from the outbox (it points at the gateway),
// sets a new password and signs in with it while the old one is refused; a used link says so; from
// Settings she changes her password, downloads her data (her sessions in one JSON file) and deletes
// her account with her password, after which she cannot sign in. Each new
// screen passes axe; screenshots at 390 and 1280 px, light and dark, go to .tmp/account-screens/.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import type { RunningStudyhall } from './app-driver.ts';
import { expectAxeClean } from './axe.ts';
import { expect, studyhallTest } from './fixtures.ts';

const EMAIL = 'mira@example.com';
const FIRST_PASSWORD = 'violet kettle 42 harbor';
const RECOVERED_PASSWORD = 'quiet lantern 7 meadow';
const CHANGED_PASSWORD = 'copper orchard 19 tide';
const SHOTS = path.join(repoRoot, '.tmp', 'account-screens');

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });

let studyhall: RunningStudyhall;
let localbaseUrl: string;
let managementToken: string;
let anonKey: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  link: string | null;
}

/** The newest mail to `to` not in `seen`, read through localbase's management API. */
async function nextMail(to: string, seen: Set<string>): Promise<OutboxMessage> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${localbaseUrl}/v1/projects/local/auth/outbox`, {
      headers: { authorization: `Bearer ${managementToken}` },
    });
    const { messages } = (await response.json()) as { messages: OutboxMessage[] };
    const fresh = messages.find((message) => message.to === to && !seen.has(message.id));
    if (fresh) {
      seen.add(fresh.id);
      return fresh;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no new mail to ${to}`);
}

/** The page as it is now at 390 and 1280 px, light and dark (looked at by a person, not compared). */
async function screenshots(page: Page, name: string, locator?: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const file = path.join(SHOTS, `${name}-${width}-${colorScheme}.png`);
      if (locator) await page.locator(locator).screenshot({ path: file });
      else await page.screenshot({ path: file, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}

async function logIn(page: Page, password: string): Promise<void> {
  await page.getByRole('tab', { name: 'Log in', exact: true }).click();
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in to my account', exact: true }).click();
}

const signedIn = (page: Page) => page.getByRole('button', { name: 'Start' }).waitFor({ timeout: 20_000 });

test.beforeAll(async ({ studyhall: server, browser: chromium }) => {
  studyhall = server;
  browser = chromium;
  localbaseUrl = studyhall.localbaseUrl;
  const keys = await studyhall.keys();
  managementToken = keys.accessToken;
  anonKey = keys.anonKey;
});

test.afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
});

test.describe('a student manages her account and gets back in', () => {
  const seenMail = new Set<string>();
  let page: Page;
  let recoveryLink = '';

  test('refuses a common password at sign-up with the reason, then signs her up', async () => {
    test.setTimeout(60_000);
    page = await newPage({ acceptDownloads: true });
    await page.goto(`${studyhall.url}/focus`);
    await page.getByRole('tab', { name: 'Create account', exact: true }).click();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill('password');
    await page.getByRole('button', { name: 'Create my account', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Too common');
    await page.getByLabel('Password', { exact: true }).fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Create my account', exact: true }).click();
    await signedIn(page);
  });

  test('signs out, asks for a link with "Forgot password?" and is told the same whoever asks', async () => {
    test.setTimeout(90_000);
    // The server sends no mail (no SMTP_URL): the page says where the link waits instead.
    await page.goto(`${studyhall.url}/settings`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await expectAxeClean(page, 'forgot password');
    await screenshots(page, 'forgot-password');
    // An address without an account gets the same answer (and no mail).
    await page.getByLabel('E-mail').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Ask for a reset link' }).click();
    await page.getByText('If an account exists for nobody@example.com, its reset link is now waiting').waitFor();
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByRole('button', { name: 'Ask for a reset link' }).click();
    const sent = page.getByText(`If an account exists for ${EMAIL}, its reset link is now waiting`);
    await sent.waitFor();
    // Focus moved to the message, so a keyboard or screen-reader user lands on it.
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain('its reset link');
    await expectAxeClean(page, 'forgot password, sent');
    await screenshots(page, 'forgot-password-sent');
    const mail = await nextMail(EMAIL, seenMail);
    expect(mail.link).toBeTruthy();
    recoveryLink = mail.link ?? '';
    // The link leads through the gateway (the only address a browser reaches), back to this app.
    expect(recoveryLink.startsWith(`${studyhall.url}/__backend/auth/v1/verify?`)).toBe(true);
    expect(new URL(recoveryLink).searchParams.get('redirect_to')).toBe(`${studyhall.url}/reset-password`);
  });

  test('opens the link signed in for recovery, refuses a weak password with the reason and saves a strong one', async () => {
    test.setTimeout(90_000);
    await page.goto(recoveryLink);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    expect(new URL(page.url()).hash).toBe(''); // the tokens left the address at once
    await expectAxeClean(page, 'set a new password');
    await screenshots(page, 'set-new-password');
    await page.getByLabel('New password').fill('password');
    await page.getByRole('button', { name: 'Save my new password' }).click();
    await page.getByText('Too common').waitFor();
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Save my new password' }).click();
    await page.getByText('Too short').waitFor();
    await screenshots(page, 'set-new-password-refused');
    await page.getByLabel('New password').fill(RECOVERED_PASSWORD);
    await page.getByRole('button', { name: 'Save my new password' }).click();
    await signedIn(page);
  });

  test('refuses the old password and accepts the new one on another browser', async () => {
    test.setTimeout(60_000);
    const other = await newPage({ acceptDownloads: true });
    await other.goto(`${studyhall.url}/focus`);
    await logIn(other, FIRST_PASSWORD);
    await other.getByText('Wrong e-mail or password.').waitFor();
    await logIn(other, RECOVERED_PASSWORD);
    await signedIn(other);
    // From here on she works in this browser: a session a recovery link started may change the
    // password without the current one for its first hour (the backend's rule, as GoTrue's), and
    // Settings must be proven asking for it.
    page = other;
  });

  test('says that a used link has expired and offers a new one', async () => {
    test.setTimeout(60_000);
    const other = await newPage();
    await other.goto(recoveryLink);
    await other.getByText('This link has expired or was already used').waitFor();
    await other.getByRole('button', { name: 'Ask for a reset link' }).waitFor();
    await expectAxeClean(other, 'expired link');
    await screenshots(other, 'expired-link');
  });

  test('changes the password from Settings: a wrong current one and a weak new one are refused with the reason', async () => {
    test.setTimeout(90_000);
    await page.goto(`${studyhall.url}/settings`);
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await expectAxeClean(page, 'settings');
    await screenshots(page, 'account-section', 'section[aria-labelledby="account-title"]');
    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password').fill(CHANGED_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your current password is not right.').waitFor();
    await page.getByLabel('Current password').fill(RECOVERED_PASSWORD);
    await page.getByLabel('New password').fill('password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Too common').waitFor();
    await page.getByLabel('New password').fill(CHANGED_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await screenshots(page, 'account-section-changed', 'section[aria-labelledby="account-title"]');
    // Straight to localbase's password grant: the gateway's /__auth routes allow 10 attempts a
    // minute per address, which the browser steps of this file already spend.
    const login = (password: string) =>
      fetch(`${localbaseUrl}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', apikey: anonKey },
        body: JSON.stringify({ email: EMAIL, password }),
      });
    expect((await login(RECOVERED_PASSWORD)).status).toBe(400);
    expect((await login(CHANGED_PASSWORD)).status).toBe(200);
  });

  test('downloads her data as one JSON file with her sessions', async () => {
    test.setTimeout(60_000);
    const session = JSON.parse((await page.evaluate(() => localStorage.getItem('studyhall-auth'))) ?? 'null') as {
      access_token: string;
    };
    const started = new Date(Date.now() - 60 * 60_000).toISOString();
    const recorded = await fetch(`${studyhall.url}/__backend/rest/v1/rpc/record_study_session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` },
      body: JSON.stringify({
        p_client_id: crypto.randomUUID(),
        p_started_at: started,
        p_minutes: 25,
        p_subject_id: 'anatomy',
        p_subject_name: 'Anatomy',
        p_task_id: null,
        p_task_title: null,
        p_correct: 3,
        p_incorrect: 1,
        p_skipped: 0,
      }),
    });
    expect(recorded.status, await recorded.text()).toBeLessThan(300);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download my data' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^studyhall-my-data-\d{4}-\d{2}-\d{2}\.json$/);
    const file = JSON.parse(await readFile((await download.path()) ?? '', 'utf8')) as {
      study_sessions: { minutes: number; subject_name: string }[];
    };
    expect(file.study_sessions).toMatchObject([{ minutes: 25, subject_name: 'Anatomy' }]);
    await page.getByText(/Saved as studyhall-my-data-/).waitFor();
  });

  test('deletes her account after she typed the word and her password, signs this device out, and she cannot sign in again', async () => {
    test.setTimeout(90_000);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' });
    await dialog.getByText('longest-standing moderator').waitFor();
    await expectAxeClean(page, 'delete dialog');
    await screenshots(page, 'delete-account', 'dialog[open]');
    const word = ((await dialog.locator('label strong').textContent()) ?? '').trim();
    expect(word).not.toBe('');
    const confirm = dialog.getByRole('button', { name: 'Delete my account', exact: true });
    await dialog.getByLabel(/to confirm/).fill(`${word}x`);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(/to confirm/).fill(word.toUpperCase());
    await dialog.getByLabel('Your password').fill(CHANGED_PASSWORD);
    await confirm.click();
    await page.getByRole('heading', { name: /Welcome/ }).waitFor({ timeout: 20_000 });
    await page.getByText(`The account ${EMAIL} was deleted`).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate(() => localStorage.getItem('studyhall-auth'))).toBeNull();
    expect(await page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name))).toEqual([]);
    const grant = await fetch(`${localbaseUrl}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: anonKey },
      body: JSON.stringify({ email: EMAIL, password: CHANGED_PASSWORD }),
    });
    expect(grant.status).toBe(400);
    await logIn(page, CHANGED_PASSWORD);
    // The same answer as for any wrong password: the form tells nobody which addresses have an account.
    await page.getByText('Wrong e-mail or password.').waitFor();
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
  });
});

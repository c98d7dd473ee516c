// The admin console as a new owner uses it, in Debian's Chromium against a real `npm start` (the
// embedded localbase, admin mode on, ADMIN_SECRET set), the browser in New York time:
// - Verify shows its last run with the time and a "Run again" button instead of rerunning on each
//   view (the first view runs once); the browser proof likewise;
// - the checks leave nothing in the audit log, and every console action appears there exactly once
//   (bans, a reset link, a void, a role grant and revoke, a report's resolution, a deletion), in the
//   file mirror too, with filters by action and person and keyset paging past 200 entries;
// - the owner, signed in with the secret, revokes a mistaken grant even of the last admin row; an
//   admin signed in with her account still may not revoke her own row, and the page says why;
// - students are named (never "her"), times read in the browser's own zone with the date (UTC with
//   the date without JavaScript), buttons use the app's shared tokens.
// axe on every page changed finds nothing serious or critical, light and dark; screenshots at 390 and
// 1280 px go to .tmp/screenshots/admin-owner/ for a person to look at.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import type { RunningStudyhall } from '#tools/e2e/app-driver.ts';
import { axeFindings } from '#tools/e2e/axe.ts';
import { asStudent, student, type Student } from '#tools/e2e/community-driver.ts';
import { expect, studyhallTest } from '#tools/e2e/fixtures.ts';

const SECRET = 'owner-e2e-admin-secret-long-enough';
const SCREENSHOTS = path.join(repoRoot, '.tmp', 'screenshots', 'admin-owner');
const TIME_ZONE = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const test = studyhallTest({ env: { ENABLE_ADMIN_MODE: 'true', ADMIN_SECRET: SECRET } });
test.describe.configure({ mode: 'serial' });

let logDir: string;
let dataDir: string;
let studyhall: RunningStudyhall;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let ben: Student;
let dee: Student;
let ava: Student;
let cal: Student;

/** Both widths, light and dark: axe with nothing serious or critical, and a screenshot of each. */
async function lookAt(target: Page, name: string): Promise<void> {
  for (const viewport of [PHONE, DESKTOP]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await target.setViewportSize(viewport);
      await target.emulateMedia({ colorScheme });
      const where = `${name} at ${viewport.width} px, ${colorScheme}`;
      expect(await axeFindings(target, where), where).toEqual([]);
      const overflow = await target.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow, `${name} at ${viewport.width} px scrolls sideways`).toBeLessThanOrEqual(0);
      await target.screenshot({
        path: path.join(SCREENSHOTS, `${name}-${viewport.width}${colorScheme === 'dark' ? '-dark' : ''}.png`),
        fullPage: true,
      });
    }
  }
  await target.setViewportSize(DESKTOP);
  await target.emulateMedia({ colorScheme: 'light' });
}

/** A SQL statement through localbase's Management API, as the database owner. */
async function ownerSql<T>(query: string): Promise<T[]> {
  const backend = /studyhall: backend (http:\/\/127\.0\.0\.1:\d+)/.exec(studyhall.output())?.[1];
  const { accessToken } = JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as {
    accessToken: string;
  };
  const response = await fetch(`${backend}/v1/projects/local/database/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as T[];
}

/** The audit page's rows as text, and their entry numbers. */
async function auditRows(target: Page): Promise<{ texts: string[]; ids: number[] }> {
  const rows = target.getByRole('main').getByRole('table').locator('tbody tr');
  const texts = await rows.allTextContents();
  const ids = texts.map((text) => Number(/#(\d+)/.exec(text)?.[1]));
  return { texts, ids };
}

async function signInWithSecret(target: Page, next = '/__admin/verify'): Promise<void> {
  await target.goto(`${studyhall.url}/__admin/login?next=${encodeURIComponent(next)}`);
  const secret = target.getByRole('textbox', { name: /^Admin secret/ });
  await secret.fill(SECRET);
  await secret.press('Enter');
  await target.waitForURL(`**${next}`, { timeout: 90_000 });
}

function checkedAt(target: Page) {
  return target
    .getByText(/^Checked /)
    .locator('time')
    .getAttribute('datetime');
}

test.beforeAll(async ({ studyhall: server, browser: chromium }) => {
  test.setTimeout(300_000);
  studyhall = server;
  browser = chromium;
  dataDir = studyhall.dataDir;
  logDir = studyhall.logDir;
  await mkdir(SCREENSHOTS, { recursive: true });
  // One after the other: four password hashes at once on a fresh server outlast the gateway's
  // backend timeout on a busy machine, and the sign-ups are not what this file tests.
  ben = await student(studyhall.url, 'Ben', 'ben');
  dee = await student(studyhall.url, 'Dee', 'dee');
  ava = await student(studyhall.url, 'Ava', 'ava');
  cal = await student(studyhall.url, 'Cal', 'cal');
  owner = await browser.newContext({ viewport: DESKTOP, timezoneId: TIME_ZONE, locale: 'en-US' });
  page = await owner.newPage();
  page.setDefaultTimeout(30_000);
});

test.afterAll(async () => {
  await owner?.close();
});

test.describe('the console for a new owner', () => {
  test('shows the last verify run with its time and a Run again button; the browser proof likewise', async () => {
    test.setTimeout(300_000);
    await signInWithSecret(page);
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^All \d+ checks pass\.$/);
    const first = await checkedAt(page);
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.getByText(/^Checked /).textContent()).toMatch(/^Checked just now/);

    // Viewing again shows the same run, at once.
    const started = Date.now();
    await page.reload();
    const reloadMs = Date.now() - started;
    expect(await checkedAt(page)).toBe(first);
    console.log(`verify: the page again in ${reloadMs} ms without rerunning the checks`);

    await page.getByRole('button', { name: 'Run again' }).click();
    await page.waitForURL('**/__admin/verify');
    const second = await checkedAt(page);
    expect(second, 'Run again made a new run').not.toBe(first);
    expect(Date.parse(second ?? '')).toBeGreaterThan(Date.parse(first ?? ''));
    await lookAt(page, 'verify');

    // The browser proof runs on its first view, then shows that run with its own Run again.
    await page.getByRole('link', { name: 'Browser proof', exact: true }).click();
    await page.waitForFunction(() => document.body.dataset.proof !== undefined, undefined, { timeout: 90_000 });
    expect(await page.evaluate(() => document.body.dataset.proof)).toBe('passed');
    await page.reload();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Last run .* passed/);
    expect(await page.evaluate(() => document.body.dataset.proof)).toBeUndefined();
    const reports = async () =>
      (
        (await page.evaluate(async () =>
          (await fetch('/__admin/browser-proof', { headers: { accept: 'application/json' } })).json(),
        )) as { last_reports: unknown[] }
      ).last_reports.length;
    expect(await reports()).toBe(1);
    await lookAt(page, 'browser-proof-last');
    await page.getByRole('button', { name: 'Run again' }).click();
    await page.waitForFunction(() => document.body.dataset.proof !== undefined, undefined, { timeout: 90_000 });
    expect(await page.evaluate(() => document.body.dataset.proof)).toBe('passed');
    expect(await reports()).toBe(2);

    await page.goto(`${studyhall.url}/__admin/verify`);
    expect(await page.getByRole('region', { name: 'Browser proof' }).textContent()).toMatch(/passed/);
  });

  test('keeps every console action in the audit log once, and nothing of the checks', async () => {
    test.setTimeout(300_000);
    // Two verify runs and two browser proofs have created and deleted temporary accounts: none of it shows.
    await page.goto(`${studyhall.url}/__admin/audit`);
    const quiet = await auditRows(page);
    expect(quiet.texts.join('\n')).not.toMatch(/delete_account|verify-|browser-proof-/);
    expect(quiet.texts).toHaveLength(1);
    expect(quiet.texts[0]).toContain('console:login');
    expect(quiet.texts[0]).toContain('the owner (admin secret)');

    // Something to act on: a report by Ava on Ben, and a study session of Ben's.
    await asStudent(studyhall.url, ava, '/rest/v1/rpc/community_submit_report', {
      body: { p_target_type: 'user', p_target_id: ben.id, p_reason: 'Spams the group chat with links.' },
    });
    await asStudent(studyhall.url, ben, '/rest/v1/rpc/record_study_session', {
      body: { p_started_at: new Date(Date.now() - 90 * 60_000).toISOString(), p_minutes: 45 },
    });

    // Users: a reset link by mail, a ban and its lifting.
    await page.goto(`${studyhall.url}/__admin/users`);
    await page.getByRole('link', { name: ben.email }).click();
    await page.getByRole('button', { name: 'E-mail a reset link' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain(`A reset link went to ${ben.email}`);
    await page.getByRole('combobox', { name: 'Ban for' }).selectOption('24h');
    await page
      .getByRole('checkbox', { name: `${ben.email} is signed out everywhere and cannot sign in until the ban ends` })
      .check();
    await page.getByRole('button', { name: `Ban ${ben.email}` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('is banned for one day');
    await page.getByRole('button', { name: `Lift the ban on ${ben.email}` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('is no longer banned');

    // Sessions: void Ben's session.
    await page.getByRole('link', { name: `Sessions of ${ben.email}` }).click();
    await page.getByRole('textbox', { name: /^Reason/ }).fill('Timer left running over lunch.');
    await page.getByRole('button', { name: /^Void the 45-minute session/ }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Voided the 45-minute session');

    // Roles: admin granted to Ben by mistake (the only admin row).
    await page.goto(`${studyhall.url}/__admin/roles`);
    await page.getByRole('textbox', { name: /^E-mail or user id/ }).fill(ben.email);
    await page.getByRole('button', { name: 'Grant admin' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`${ben.email} can now unlock the console.`);

    // Reports: Ava's report dismissed.
    await page.goto(`${studyhall.url}/__admin/reports`);
    await page.getByRole('radio', { name: /^Dismiss/ }).check();
    await page.getByRole('button', { name: 'Resolve report 1' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('The report was dismissed.');

    // Users: Cal's account deleted.
    await page.goto(`${studyhall.url}/__admin/users`);
    await page.getByRole('link', { name: cal.email }).click();
    await page.getByRole('textbox', { name: /^Type the account's e-mail/ }).fill(cal.email);
    await page.getByRole('button', { name: `Delete ${cal.email} for good` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain(`${cal.email} was deleted`);

    await page.goto(`${studyhall.url}/__admin/audit`);
    const { texts } = await auditRows(page);
    const once = [
      'console:mail_reset_link',
      'console:ban_user',
      'console:unban_user',
      'void_session',
      'grant_role',
      'resolve_report:dismiss',
      'delete_account',
    ];
    for (const action of once) {
      const rows = texts.filter((text) => text.includes(action));
      expect(rows, `${action} in\n${texts.join('\n')}`).toHaveLength(1);
      expect(rows[0], action).toContain('the owner (admin secret)');
    }
    expect(texts.filter((text) => text.includes(cal.email) || text.includes(cal.id.slice(0, 8)))).toHaveLength(1);
    await lookAt(page, 'audit');

    // Filters: by action, then by person.
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Voided study sessions' });
    await page.getByRole('button', { name: 'Filter' }).click();
    const voids = await auditRows(page);
    expect(voids.texts).toHaveLength(1);
    expect(voids.texts[0]).toContain('void_session');
    expect(voids.texts[0]).toContain(ben.email);
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'All actions' });
    await page.getByRole('textbox', { name: /^Person/ }).fill(ben.email);
    await page.getByRole('button', { name: 'Filter' }).click();
    const aboutBen = await auditRows(page);
    expect(aboutBen.texts.length).toBe(6);
    for (const text of aboutBen.texts) expect(text).toContain(ben.email);
    await page.getByRole('link', { name: 'Clear filters' }).click();

    // The file mirror has each action once too, the resolution included.
    const mirror = (await readFile(path.join(logDir, 'admin-audit.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; subject: string });
    for (const action of once.map((name) => name.replace(/^console:/, '')))
      expect(
        mirror.filter((entry) => entry.action === action),
        action,
      ).toHaveLength(1);
    expect(mirror.every((entry) => entry.subject === 'secret')).toBe(true);

    // Past 200: 230 more entries written in one transaction (one timestamp for all), paged 100 at a time.
    await ownerSql(
      `select private.record_audit('service_role', 'console:mail_reset_link', '${ava.id}', null, null, '{"console_admin": "secret"}') from generate_series(1, 230)`,
    );
    const [total] = await ownerSql<{ count: number }>('select count(*)::int as count from public.admin_audit_log');
    const count = total?.count ?? 0;
    await page.goto(`${studyhall.url}/__admin/audit`);
    const seen: number[] = [];
    for (;;) {
      const { ids } = await auditRows(page);
      expect(ids.length).toBeLessThanOrEqual(100);
      seen.push(...ids);
      const older = page.getByRole('link', { name: 'Older entries' });
      if ((await older.count()) === 0) break;
      await older.click();
      await page.waitForLoadState();
    }
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(count);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    await page.getByRole('link', { name: 'Newest entries' }).click();
    expect((await auditRows(page)).ids[0]).toBe(seen[0]);
  });

  test('lets the owner revoke a mistaken grant, the last admin row included; an admin never her own row', async () => {
    test.setTimeout(240_000);
    await page.goto(`${studyhall.url}/__admin/roles`);
    const rows = page.getByRole('table', { name: 'Admin rows' });
    await rows.getByRole('checkbox', { name: `${ben.email} can no longer unlock the console this way` }).check();
    await rows.getByRole('button', { name: `Revoke admin from ${ben.email}` }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`${ben.email} no longer has an admin row.`);
    expect(await page.getByRole('main').textContent()).toContain('No account has an admin row.');
    await lookAt(page, 'roles-owner');

    // Dee is made an admin and signs in with her own account: her own row is not hers to revoke.
    await page.getByRole('textbox', { name: /^E-mail or user id/ }).fill(dee.email);
    await page.getByRole('button', { name: 'Grant admin' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain(dee.email);
    const deeContext = await browser.newContext({ viewport: DESKTOP, timezoneId: TIME_ZONE, locale: 'en-US' });
    const deePage = await deeContext.newPage();
    deePage.setDefaultTimeout(30_000);
    await deePage.goto(`${studyhall.url}/__admin/login?next=/__admin/roles`);
    await deePage.getByRole('textbox', { name: 'E-mail' }).fill(dee.email);
    await deePage.getByRole('textbox', { name: /^Password/ }).fill('dee-password-1');
    await deePage.getByRole('button', { name: 'Sign in and unlock' }).click();
    await deePage.waitForURL('**/__admin/roles', { timeout: 60_000 });
    const deeRows = deePage.getByRole('table', { name: 'Admin rows' });
    expect(await deeRows.getByRole('button', { name: /^Revoke admin/ }).count()).toBe(0);
    expect(await deeRows.textContent()).toContain(
      'This is your own admin row: you signed in with it, so revoking it would lock you out of the console.',
    );
    const refused = await deePage.evaluate(async (userId) => {
      const response = await fetch('/__admin/roles', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ user_id: userId, role: 'admin' }),
      });
      return { status: response.status, body: await response.json() };
    }, dee.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('own_admin_row');
    expect(refused.body.message).toMatch(/^This is your own admin row/);

    // With Ben an admin again she may revoke his row, never her own.
    await page.getByRole('textbox', { name: /^E-mail or user id/ }).fill(ben.email);
    await page.getByRole('button', { name: 'Grant admin' }).click();
    await deePage.reload();
    await deeRows.getByRole('checkbox', { name: `${ben.email} can no longer unlock the console this way` }).check();
    await deeRows.getByRole('button', { name: `Revoke admin from ${ben.email}` }).click();
    await expect
      .poll(() => deePage.getByRole('status').first().textContent())
      .toBe(`${ben.email} no longer has an admin row.`);
    expect(await deeRows.getByRole('button', { name: /^Revoke admin/ }).count()).toBe(0);
    await lookAt(deePage, 'roles-admin-own-row');
    await deeContext.close();
  });

  test('names each student, shows times in the browser’s zone with the date, and styles buttons with the app’s tokens', async () => {
    test.setTimeout(240_000);
    const words = /\b(her|hers|herself|she)\b/i;
    const bareClock = /(?<!\d{4}-\d\d-\d\d )\b\d\d:\d\d UTC\b/;
    const pages = [
      '/__admin/verify',
      '/__admin/patch',
      '/__admin/sync',
      '/__admin/storage',
      '/__admin/users',
      `/__admin/users/${ben.id}`,
      '/__admin/reports',
      '/__admin/audit',
      '/__admin/roles',
      `/__admin/sessions?account=${encodeURIComponent(ben.email)}`,
      '/__admin/outbox',
    ];
    for (const route of pages) {
      await page.goto(`${studyhall.url}${route}`);
      const text = (await page.locator('body').innerText()) ?? '';
      expect(text, route).not.toMatch(words);
      expect(text, `${route}: a time in UTC with no date`).not.toMatch(bareClock);
      // With JavaScript every time reads in New York time, with its date.
      for (const time of await page.locator('main time[datetime], header time[datetime]').all()) {
        const shown = (await time.textContent()) ?? '';
        expect(shown, route).not.toContain('UTC');
        expect(shown, route).toMatch(/\b20\d\d\b/);
      }
    }

    // The header names the owner's sign-in, with its end in local time.
    const session = (await page.getByRole('banner').textContent()) ?? '';
    expect(session).toContain('Signed in as the owner (admin secret) until');
    const until = await page.getByRole('banner').locator('time').getAttribute('datetime');
    const localHour = new Intl.DateTimeFormat('en-US', { hour: 'numeric', hour12: true, timeZone: TIME_ZONE })
      .format(new Date(until ?? ''))
      .replace(/\s?[AP]M$/, '');
    expect(await page.getByRole('banner').locator('time').textContent()).toContain(`${localHour}:`);

    // Ben's pages use his name (or "this student"), and name the owner who voided his session.
    await page.goto(`${studyhall.url}/__admin/sessions?account=${encodeURIComponent(ben.email)}`);
    expect(await page.getByRole('main').textContent()).toContain('by the owner (admin secret): Timer left running');
    await lookAt(page, 'sessions');
    await page.goto(`${studyhall.url}/__admin/users/${ben.id}`);
    await lookAt(page, 'user');

    // The app's buttons: the accent for the primary one, the secondary look with danger text for a dangerous one.
    const tokens = await page.evaluate(() => {
      const probe = (value: string) => {
        const element = document.createElement('span');
        element.style.color = value;
        document.body.append(element);
        const colour = getComputedStyle(element).color;
        element.remove();
        return colour;
      };
      return {
        accent: probe('var(--color-accent)'),
        surface: probe('var(--color-surface)'),
        danger: probe('var(--color-danger)'),
      };
    });
    expect(tokens.accent).toBe('rgb(52, 81, 199)');
    await page.goto(`${studyhall.url}/__admin/users`);
    const style = (name: string) =>
      page.getByRole('button', { name }).evaluate((button) => {
        const computed = getComputedStyle(button);
        return { background: computed.backgroundColor, color: computed.color, radius: computed.borderRadius };
      });
    expect(await style('Search')).toMatchObject({ background: tokens.accent, radius: '10px' });
    await page.goto(`${studyhall.url}/__admin/users/${ben.id}`);
    expect(await style(`Delete ${ben.email} for good`)).toMatchObject({
      background: tokens.surface,
      color: tokens.danger,
      radius: '10px',
    });

    // Without JavaScript the same page reads in UTC, with the date.
    const plain = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false, timezoneId: TIME_ZONE });
    await plain.addCookies(await owner.cookies());
    const plainPage = await plain.newPage();
    await plainPage.goto(`${studyhall.url}/__admin/audit`);
    expect(await plainPage.getByRole('banner').locator('time').textContent()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    await plainPage.screenshot({ path: path.join(SCREENSHOTS, 'audit-without-javascript-1280.png') });
    await plain.close();
  });
});

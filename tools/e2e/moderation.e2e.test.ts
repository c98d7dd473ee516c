// Moderation end to end in Debian's Chromium, against a real `npm start` with admin mode on: Ada
// owns a group, Bo and Cy are members, each in their own browser; Cy posts, Bo reports the message
// from the chat; an admin (a fourth browser, unlocked with her own account, which the owner made an
// admin on the Roles page) opens Reports, sees the message with the chat around it, and resolves
// the report by deleting it. Ada, Bo and Cy each see it shown as removed within a second of the
// resolve's answer, the Audit log names the admin and the action, and Bo's report reads as
// handled (through the Data API, and on the group page under "Your reports", screenshots at 390
// and 1280 px). Then axe on the console's Users, Reports, Audit log, Outbox and Sessions pages, with
// screenshots at 390 and 1280 px, light and dark, under .tmp/screenshots/moderation/.
//
// A server of its own (admin mode on), so that it runs beside the community's suite rather than
// after it: Ada, Bo and Cy are the community fixture's students, Dee signs up here, and the group is
// a new one.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import { signedInContext, type RunningStudyhall } from './app-driver.ts';
import { expectAxeClean } from './axe.ts';
import { asStudent, dismissRestoreOffer, student, type Student } from './community-driver.ts';
import { expect, studyhallTest } from './fixtures.ts';

const SCREENSHOTS = path.join(repoRoot, '.tmp', 'screenshots', 'moderation');
const CY_SAYS = 'Bo never does his share, what a freeloader.';

/** The console's secret on this suite's server. */
const ADMIN_SECRET = 'moderation-e2e-admin-secret-long';

const test = studyhallTest({ env: { ENABLE_ADMIN_MODE: 'true', ADMIN_SECRET } });
test.describe.configure({ mode: 'serial' });

let studyhall: RunningStudyhall;
let browser: Browser;
let app: string;
let ada: Student;
let bo: Student;
let cy: Student;
let dee: Student;
let groupId = '';
let messageId = '';
const pages = new Map<string, Page>();
let adminPage: Page;

async function studentPage(who: Student): Promise<Page> {
  const existing = pages.get(who.handle);
  if (existing) return existing;
  const context = await signedInContext(browser, who.session, { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  pages.set(who.handle, page);
  await page.goto(`${app}/groups/${groupId}`);
  await page.locator('main h1').first().waitFor();
  await dismissRestoreOffer(page);
  await expect.poll(() => page.locator('.chat-status').textContent(), { timeout: 15_000 }).toContain('Live');
  return page;
}

/** The text the chat shows for one message, or null while it has none. */
function messageText(page: Page, id: string): Promise<string | null> {
  return page.evaluate(
    (wanted) => document.querySelector(`.chat-message[data-message-id="${wanted}"] .chat-text`)?.textContent ?? null,
    id,
  );
}

test.describe('a reported message, resolved from the console', () => {
  test.beforeAll(async ({ studyhall: server, browser: chromium, app: address, ada: a, bo: b, cy: c }) => {
    [studyhall, browser, app, ada, bo, cy] = [server, chromium, address, a, b, c];
    dee = await student(studyhall.url, 'Dee', 'dee_admin');
    const [group] = await asStudent<{ id: string }[]>(studyhall.url, ada, '/rest/v1/groups', {
      body: { name: 'Chemistry club', join_policy: 'open', created_by: ada.id },
      prefer: 'return=representation',
    });
    groupId = group?.id ?? '';
    for (const member of [bo, cy])
      await asStudent(studyhall.url, member, '/rest/v1/rpc/community_join_group', { body: { p_group_id: groupId } });
    await asStudent(studyhall.url, ada, '/rest/v1/rpc/community_send_group_message', {
      body: { p_group_id: groupId, p_content: 'Who has the notes for the titration lab?' },
    });
  });

  test('is posted by Cy and reported by Bo from the chat', async () => {
    test.setTimeout(90_000);
    const [adaPage, boPage, cyPage] = [await studentPage(ada), await studentPage(bo), await studentPage(cy)];
    await cyPage.getByRole('textbox', { name: 'Message' }).fill(CY_SAYS);
    await cyPage.getByRole('textbox', { name: 'Message' }).press('Enter');
    for (const page of [adaPage, boPage, cyPage])
      await expect.poll(() => page.locator('.chat-text').allTextContents(), { timeout: 5_000 }).toContain(CY_SAYS);
    messageId =
      (await boPage
        .locator('.chat-message', { hasText: CY_SAYS })
        .evaluate((node) => (node as HTMLElement).dataset.messageId)) ?? '';
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);

    await boPage
      .locator('.chat-message', { hasText: CY_SAYS })
      .getByRole('button', { name: /^Actions for/ })
      .click();
    await boPage.getByRole('button', { name: 'Report this message by Cy' }).click();
    const dialog = boPage.getByRole('dialog', { name: 'Report this message by Cy' });
    await dialog.getByLabel('What is wrong?').fill('Name-calling aimed at me in front of the group.');
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await boPage.getByRole('dialog', { name: 'Report sent' }).getByRole('button', { name: 'Done' }).click();
    // The group page lists it at once, under "Your reports", as open.
    const yours = boPage.getByRole('region', { name: 'Your reports' });
    await expect.poll(() => yours.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining(CY_SAYS)]);
    expect(await yours.getByRole('listitem').textContent()).toMatch(/Open$/);
    expect(await (await studentPage(cy)).getByRole('region', { name: 'Your reports' }).count()).toBe(0);
    const mine = await asStudent<{ status: string; target_id: string }[]>(
      studyhall.url,
      bo,
      '/rest/v1/community_reports?select=status,target_id',
    );
    expect(mine).toEqual([{ status: 'open', target_id: messageId }]);
  });

  test('is resolved by an admin who unlocked with her own account; everyone sees it removed within a second', async () => {
    test.setTimeout(120_000);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    adminPage = await context.newPage();
    adminPage.setDefaultTimeout(15_000);
    // The owner makes Dee an admin on the Roles page, then logs out.
    await adminPage.goto(`${app}/__admin/login?next=/__admin/roles`);
    const secret = adminPage.locator('input[name="secret"]');
    await secret.fill(ADMIN_SECRET);
    await secret.press('Enter');
    await adminPage.waitForURL(/\/__admin\/roles$/);
    await adminPage.locator('input[name="account"]').fill(dee.email);
    await adminPage.getByRole('button', { name: 'Grant admin' }).click();
    await expect.poll(() => adminPage.locator('main').textContent()).toContain(dee.email);
    await adminPage.getByRole('button', { name: 'Log out' }).click();
    await adminPage.waitForURL(/\/__admin\/login/);

    // Dee unlocks with her account and opens Reports.
    await adminPage.goto(`${app}/__admin/login?next=/__admin/reports`);
    await adminPage.locator('#account-login input[name="email"]').fill(dee.email);
    await adminPage.locator('#account-login input[name="password"]').fill('dee_admin-password-1');
    await adminPage.getByRole('button', { name: 'Sign in and unlock' }).click();
    await adminPage.waitForURL(/\/__admin\/reports$/);
    const report = adminPage.locator('section.report').first();
    expect(await report.locator('h2').textContent()).toBe(`1. A message by @${cy.handle}`);
    const facts = (await report.locator('dl.facts').textContent()) ?? '';
    expect(facts).toContain('by @bo_park');
    expect(facts).toContain('Name-calling aimed at me in front of the group.');
    expect(facts).toContain('Chemistry club');
    const context_ = await report.locator('ol.chat-context li').allTextContents();
    expect(context_).toHaveLength(2);
    expect(context_[0]).toContain('Who has the notes for the titration lab?');
    expect(context_[1]).toContain(CY_SAYS);
    expect(context_[1]).toContain('(reported)');

    // Each student's page notes when the message first shows as removed (page clock -> wall clock).
    const watchers = [ada, bo, cy].map(async (who) => {
      const page = await studentPage(who);
      await page.waitForFunction(
        (wanted) =>
          document.querySelector(`.chat-message[data-message-id="${wanted}"] .chat-text`)?.textContent ===
          'Message removed',
        messageId,
        { timeout: 10_000, polling: 'raf' },
      );
      return { who: who.name, shownAt: Date.now() };
    });
    await report.getByRole('radio', { name: 'Delete the message' }).check();
    const answered = adminPage.waitForResponse(
      (response) => response.url().endsWith('/resolve') && response.request().method() === 'POST',
    );
    const clickedAt = Date.now();
    await report.getByRole('button', { name: 'Resolve report 1' }).click();
    const answer = await answered;
    const answeredAt = Date.now();
    expect(answer.status()).toBeLessThan(400);
    const seen = await Promise.all(watchers);
    const delays = seen.map(({ who, shownAt }) => ({ who, ms: shownAt - answeredAt }));
    // The realtime UPDATE usually arrives before the console's page does (negative figures): the
    // database commits, then the gateway renders the answer.
    console.log(
      `moderation: removed shown after the resolve's answer: ${delays.map((d) => `${d.who} ${d.ms} ms`).join(', ')}` +
        ` (answer ${answeredAt - clickedAt} ms after the click)`,
    );
    for (const { ms } of delays) expect(ms).toBeLessThan(1000);
    for (const who of [ada, bo, cy]) {
      const page = await studentPage(who);
      expect(await messageText(page, messageId)).toBe('Message removed');
      expect(await page.locator('main').textContent()).not.toContain(CY_SAYS);
    }
    await expect
      .poll(() => adminPage.locator('[role="status"]').first().textContent())
      .toBe('The message was deleted for everyone.');
    expect(await adminPage.locator('main').textContent()).toContain('No report is waiting.');
  });

  test('is named in the Audit log with the admin and the action', async () => {
    await adminPage.goto(`${app}/__admin/audit`);
    const rows = adminPage.locator('table tbody tr');
    const texts = await rows.allTextContents();
    const resolved = texts.find((text) => text.includes('resolve_report:delete_message'));
    expect(resolved, texts.join('\n')).toBeDefined();
    expect(resolved).toContain(dee.email);
    // The console acts as the service role and names the signed-in admin on the row.
    expect(resolved).toContain(`${dee.email} (console)`);
    expect(resolved).toContain(cy.email);
  });

  test('reads as handled for Bo, the reporter, and tells him nothing more', async () => {
    const mine = await asStudent<Record<string, unknown>[]>(
      studyhall.url,
      bo,
      '/rest/v1/community_reports?select=id,target_type,target_id,reason,created_at,status,resolved_at',
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'actioned', target_id: messageId });
    expect(mine[0]?.resolved_at).toEqual(expect.any(String));
    // What was done, by whom and why stays with the admins (column grants).
    for (const hidden of ['resolution', 'resolved_by', 'note'])
      await expect(asStudent(studyhall.url, bo, `/rest/v1/community_reports?select=${hidden}`)).rejects.toThrow(
        /answered 403/,
      );
    expect(await asStudent(studyhall.url, cy, '/rest/v1/community_reports?select=id')).toEqual([]);

    // On the group page, when he opens it again: the message as removed, and Handled with the date.
    const page = await studentPage(bo);
    await page.goto(`${app}/groups/${groupId}`);
    const yours = page.getByRole('region', { name: 'Your reports' });
    await yours.getByRole('heading', { name: 'Your reports', level: 2 }).waitFor();
    const item = (await yours.getByRole('listitem').allTextContents()).join('\n');
    expect(item).toContain('A message by Cy: Message removed');
    expect(item).toMatch(/Handled \S/);
    expect(item).not.toContain(CY_SAYS);
    expect(await yours.locator('time').nth(1).getAttribute('datetime')).toBe(mine[0]?.resolved_at);
    await mkdir(SCREENSHOTS, { recursive: true });
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(viewport);
      await expectAxeClean(page, `your reports ${viewport.width}px`, { include: '.my-reports', impact: 'any' });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      await yours.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOTS, `your-reports-${viewport.width}.png`) });
    }
  });
});

test.describe("the console's moderation pages", () => {
  const PAGES = [
    ['users', '/__admin/users'],
    ['reports', '/__admin/reports'],
    ['audit', '/__admin/audit'],
    ['outbox', '/__admin/outbox'],
    ['sessions', `/__admin/sessions?account=${encodeURIComponent('ada@example.com')}`],
  ] as const;

  test.beforeAll(async () => {
    test.setTimeout(30_000);
    // Something on every page: a kept recovery mail, a study session of Ada's, a report still open.
    await fetch(`${studyhall.url}/__backend/auth/v1/recover`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        apikey: ((await (await fetch(`${studyhall.url}/api/client-config`)).json()) as { anon_key: string }).anon_key,
      },
      body: JSON.stringify({ email: cy.email }),
    });
    await asStudent(studyhall.url, ada, '/rest/v1/rpc/record_study_session', {
      body: { p_started_at: new Date(Date.now() - 90 * 60_000).toISOString(), p_minutes: 45 },
    });
    await asStudent(studyhall.url, ada, '/rest/v1/rpc/community_submit_report', {
      body: { p_target_type: 'user', p_target_id: cy.id, p_reason: 'Keeps mocking people who ask questions.' },
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  for (const [name, route] of PAGES) {
    test(`${name}: axe finds nothing, and nothing overflows a phone, in light and dark`, async () => {
      test.setTimeout(90_000);
      // Loaded once, then checked in each look: the console's layouts and themes are CSS media
      // queries, which a page follows when its viewport or colour scheme changes.
      await adminPage.goto(`${app}${route}`);
      await adminPage.locator('main h1').waitFor();
      expect(new URL(adminPage.url()).pathname, 'signed in, not sent to the unlock page').toBe(route.split('?')[0]);
      for (const viewport of [
        { width: 390, height: 844 },
        { width: 1280, height: 800 },
      ]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          await adminPage.setViewportSize(viewport);
          await adminPage.emulateMedia({ colorScheme });
          await expectAxeClean(adminPage, `${name} ${viewport.width}px ${colorScheme}`, { impact: 'any' });
          const overflow = await adminPage.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          expect(overflow, `${name} ${viewport.width}px ${colorScheme} scrolls sideways`).toBeLessThanOrEqual(0);
          // Nor does a table scroll sideways inside its box on a phone: it stacks into label / value rows.
          if (viewport.width < 640)
            expect(
              await adminPage.evaluate(
                () =>
                  [...document.querySelectorAll('.scroll')].filter((box) => box.scrollWidth > box.clientWidth).length,
              ),
              `${name} ${colorScheme}: a table scrolls sideways on a phone`,
            ).toBe(0);
          await adminPage.screenshot({
            path: path.join(SCREENSHOTS, `${name}-${viewport.width}-${colorScheme}.png`),
            fullPage: true,
          });
        }
      }
    });
  }
});

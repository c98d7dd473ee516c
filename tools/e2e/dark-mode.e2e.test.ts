// The main student screens in dark mode, where colour contrast is what tends to differ from light:
// focus (with its phone-remote panel open), stats with a chart drawn, settings, the welcome form and
// "Forgot password?", at 390 and 1280 px, against a real `npm start` under the app's
// Content-Security-Policy. axe must find nothing at all, whatever the impact: student-app's check
// lets minor findings through, this one does not.
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import { makeTempDir } from '#gateway/test/helpers.ts';
import {
  accountSession,
  signedInContext,
  startCspProxy,
  startStudyhall,
  VIEWPORTS,
  type CspProxy,
  type RunningStudyhall,
  type SessionJson,
} from './app-driver.ts';
import { launchChromium } from './browser.ts';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let studyhall: RunningStudyhall;
let proxy: CspProxy;
let browser: Browser;
let session: SessionJson;
const contexts: BrowserContext[] = [];

/** A week of sessions in two subjects and a task, stored as the account's backup, so Stats draws its chart. */
async function storeBackup(): Promise<void> {
  const subjects = [
    { id: 's-math', name: 'Calculus', createdAt: 1 },
    { id: 's-chem', name: 'Organic chemistry', createdAt: 2 },
  ];
  const sessions = Array.from({ length: 7 }, (_, index) => {
    const date = new Date(Date.now() - index * 86_400_000);
    date.setHours(10, 0, 0, 0);
    const subject = subjects[index % 2]!;
    const minutes = 25 + index * 10;
    return {
      id: `dark-${index}`,
      startedAt: date.getTime(),
      endedAt: date.getTime() + minutes * 60_000,
      minutes,
      subjectId: subject.id,
      subjectName: subject.name,
      taskId: null,
      taskTitle: null,
      correct: index,
      incorrect: 1,
      skipped: 0,
      studyDay: `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`,
      synced: true,
    };
  });
  const payload = {
    format: 'studyhall-backup',
    version: 1,
    exported_at: new Date().toISOString(),
    subjects,
    tasks: [],
    sessions,
    settings: { focusMinutes: 25, breakMinutes: 5, cycles: 4, dayOffsetHours: 0, dailyGoalMinutes: 120 },
  };
  const stored = await fetch(`${studyhall.url}/__auth/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` },
    body: JSON.stringify({ payload }),
  });
  if (!stored.ok) throw new Error(`storing the backup failed: ${stored.status} ${await stored.text()}`);
}

/** Every axe finding on the page, whatever its impact, one line each. */
async function axeFindings(page: Page, where: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.map(
    (violation) =>
      `${where}: ${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

beforeAll(async () => {
  temp = await makeTempDir('dark-mode');
  await ensureViteBuild(VITE_BUILDS.web);
  studyhall = await startStudyhall({ dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') });
  proxy = await startCspProxy(studyhall.url);
  browser = await launchChromium();
  session = await accountSession(studyhall.url, 'dusk@example.com', 'dusk-password-1');
  await storeBackup();
}, 240_000);

afterAll(async () => {
  for (const open of contexts) await open.close().catch(() => undefined);
  await browser?.close();
  await proxy?.close();
  await studyhall?.stop();
  await temp?.remove();
});

describe('the main screens in dark mode', () => {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`has no axe finding on focus, stats, settings, welcome and forgot-password, dark, ${size}`, async () => {
      const app = proxy.url;
      const findings: string[] = [];
      const signedIn = await signedInContext(browser, session, {
        viewport,
        colorScheme: 'dark',
        reducedMotion: 'reduce',
      });
      contexts.push(signedIn);
      const page = await signedIn.newPage();
      page.setDefaultTimeout(15_000);
      // The page really is dark: the body's background is the dark token, not the light one.
      await page.goto(`${app}/focus`);
      await page.getByRole('button', { name: 'Add from the newest backup' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(19, 21, 24)');
      findings.push(...(await axeFindings(page, `/focus ${size}`)));
      await page.getByRole('button', { name: /^Phone remote/ }).click();
      await page.getByRole('region', { name: 'Phone remote' }).waitFor();
      findings.push(...(await axeFindings(page, `/focus phone-remote panel ${size}`)));
      await page.keyboard.press('Escape');

      await page.goto(`${app}/stats`);
      await page.locator('.day-chart-canvas canvas').first().waitFor();
      findings.push(...(await axeFindings(page, `/stats ${size}`)));

      await page.goto(`${app}/settings`);
      await page.getByRole('heading', { name: 'Phase-end alarm' }).waitFor();
      findings.push(...(await axeFindings(page, `/settings ${size}`)));

      const signedOut = await browser.newContext({ viewport, colorScheme: 'dark', reducedMotion: 'reduce' });
      contexts.push(signedOut);
      const visitor = await signedOut.newPage();
      visitor.setDefaultTimeout(15_000);
      await visitor.goto(`${app}/focus`);
      await visitor.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
      findings.push(...(await axeFindings(visitor, `welcome (create account) ${size}`)));
      await visitor.getByRole('tab', { name: 'Log in' }).click();
      await visitor.getByRole('link', { name: 'Forgot password?' }).waitFor();
      findings.push(...(await axeFindings(visitor, `welcome (log in) ${size}`)));
      await visitor.goto(`${app}/forgot-password`);
      await visitor.getByRole('heading', { name: 'Reset your password' }).waitFor();
      findings.push(...(await axeFindings(visitor, `/forgot-password ${size}`)));

      expect(findings).toEqual([]);
    }, 120_000);
  }
});

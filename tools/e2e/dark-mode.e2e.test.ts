// The main student screens in dark mode, where colour contrast is what tends to differ from light:
// focus (with its phone-remote panel open), stats with a chart drawn, settings, the welcome form and
// "Forgot password?", at the project's width (390 px on the phone, 1280 on the desktop), against a
// real `npm start` under the app's Content-Security-Policy. axe must find nothing at all, whatever
// the impact: the other suites' checks let minor findings through, this one does not.
import type { SessionJson } from './app-driver.ts';
import { accountSession, signedInContext } from './app-driver.ts';
import { axeFindings } from './axe.ts';
import { backupSession, storeBackup } from './backup-driver.ts';
import { expect, studyhallTest } from './fixtures.ts';

const test = studyhallTest();
test.describe.configure({ mode: 'serial' });

let session: SessionJson;

/** A week of sessions in two subjects, stored as the account's backup, so Stats draws its chart. */
test.beforeAll(async ({ studyhall }) => {
  session = await accountSession(studyhall.url, 'dusk@example.com', 'dusk-password-1');
  const subjects = [
    { id: 's-math', name: 'Calculus', createdAt: 1 },
    { id: 's-chem', name: 'Organic chemistry', createdAt: 2 },
  ];
  const sessions = Array.from({ length: 7 }, (_, index) => {
    const date = new Date(Date.now() - index * 86_400_000);
    date.setHours(10, 0, 0, 0);
    return backupSession(`dark-${index}`, date, 25 + index * 10, subjects[index % 2]!, {
      correct: index,
      incorrect: 1,
      skipped: 0,
    });
  });
  await storeBackup(studyhall.url, session, { subjects, sessions });
});

test.describe('the main screens in dark mode', () => {
  test('has no axe finding on focus, stats, settings, welcome and forgot-password, dark', async ({
    browser,
    app,
    device,
  }, testInfo) => {
    test.setTimeout(120_000);
    const size = testInfo.project.name;
    const findings: string[] = [];
    const signedIn = await signedInContext(browser, session, {
      ...device,
      colorScheme: 'dark',
      reducedMotion: 'reduce',
    });
    const page = await signedIn.newPage();
    page.setDefaultTimeout(15_000);
    // The page really is dark: the body's background is the dark token, not the light one.
    await page.goto(`${app}/focus`);
    await page.getByRole('button', { name: 'Add from the newest backup' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(19, 21, 24)');
    findings.push(...(await axeFindings(page, `/focus ${size}`, { impact: 'any' })));
    await page.getByRole('button', { name: /^Phone remote/ }).click();
    await page.getByRole('region', { name: 'Phone remote' }).waitFor();
    findings.push(...(await axeFindings(page, `/focus phone-remote panel ${size}`, { impact: 'any' })));
    await page.keyboard.press('Escape');

    await page.goto(`${app}/stats`);
    await page.locator('.day-chart-canvas canvas').first().waitFor();
    findings.push(...(await axeFindings(page, `/stats ${size}`, { impact: 'any' })));

    await page.goto(`${app}/settings`);
    await page.getByRole('heading', { name: 'Phase-end alarm' }).waitFor();
    findings.push(...(await axeFindings(page, `/settings ${size}`, { impact: 'any' })));

    const signedOut = await browser.newContext({ ...device, colorScheme: 'dark', reducedMotion: 'reduce' });
    const visitor = await signedOut.newPage();
    visitor.setDefaultTimeout(15_000);
    await visitor.goto(`${app}/focus`);
    await visitor.getByRole('heading', { name: 'Welcome to studyhall' }).waitFor();
    findings.push(...(await axeFindings(visitor, `welcome (create account) ${size}`, { impact: 'any' })));
    await visitor.getByRole('tab', { name: 'Log in' }).click();
    await visitor.getByRole('link', { name: 'Forgot password?' }).waitFor();
    findings.push(...(await axeFindings(visitor, `welcome (log in) ${size}`, { impact: 'any' })));
    await visitor.goto(`${app}/forgot-password`);
    await visitor.getByRole('heading', { name: 'Reset your password' }).waitFor();
    findings.push(...(await axeFindings(visitor, `/forgot-password ${size}`, { impact: 'any' })));

    expect(findings).toEqual([]);
    await signedIn.close();
    await signedOut.close();
  });
});

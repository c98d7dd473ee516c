// Screenshots of every route of the student app at 390x844 and 1280x800, light and dark, for
// looking at (not a test). Usage:
//   node --import tsx tools/e2e/screenshots.ts <app url> <out dir> [email] [password]
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { accountSession, signedInContext, VIEWPORTS } from './app-driver.ts';
import { backupSession, storeBackup, studyDayOf } from './backup-driver.ts';
import { launchChromium } from './browser.ts';

const [baseUrl, outDir, email = 'screens@example.com', password = 'screens-password-1'] = process.argv.slice(2);
if (!baseUrl || !outDir) {
  console.error('usage: screenshots.ts <app url> <out dir> [email] [password]');
  process.exit(2);
}
const routes = (process.env.ROUTES ?? '/focus,/stats,/backups,/profile,/settings,/no-such-page').split(',');

await mkdir(outDir, { recursive: true });
const session = await accountSession(baseUrl, email, password);
// A month of sessions, stored as the account's backup: each context restores it when offered.
if (process.env.SEED !== '0') {
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000);
  const subjects = [
    { id: 's-chem', name: 'Organic chemistry', createdAt: 1 },
    { id: 's-math', name: 'Calculus', createdAt: 2 },
    { id: 's-hist', name: 'Modern history', createdAt: 3 },
  ];
  const sessions = Array.from({ length: 24 }, (_, index) => {
    const date = day(Math.floor(index * 1.2));
    date.setHours(9 + (index % 3) * 3, 0, 0, 0);
    return backupSession(`seed-${index}`, date, 25 + ((index * 17) % 60), subjects[index % 3]!, {
      correct: (index * 7) % 15,
      incorrect: index % 4,
      skipped: index % 2,
    });
  });
  const today = studyDayOf(new Date());
  const tasks = [
    {
      id: crypto.randomUUID(),
      title: 'Past paper 2021, questions 1 to 10',
      subjectId: 's-math',
      day: today,
      done: true,
      completedAt: Date.now() - 3_600_000,
      createdAt: 1,
      updatedAt: 1,
    },
    {
      id: crypto.randomUUID(),
      title: 'Summarise chapter 7: nucleophilic substitution',
      subjectId: 's-chem',
      day: today,
      done: false,
      completedAt: null,
      createdAt: 2,
      updatedAt: 2,
    },
    {
      id: crypto.randomUUID(),
      title: 'Flashcards: the causes of the First World War',
      subjectId: 's-hist',
      day: today,
      done: false,
      completedAt: null,
      createdAt: 3,
      updatedAt: 3,
    },
  ];
  await storeBackup(baseUrl, session, { subjects, sessions, tasks });
}
const browser = await launchChromium();
try {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await signedInContext(browser, session, { viewport, colorScheme, reducedMotion: 'reduce' });
      const page = await context.newPage();
      if (process.env.SEED !== '0') {
        await page.goto(`${baseUrl}/focus`);
        await page.getByRole('button', { name: 'Add from the newest backup' }).click({ timeout: 15_000 });
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      for (const route of routes) {
        await page.goto(`${baseUrl}${route}`);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await page.waitForTimeout(400);
        const name = `${route.replace(/^\//, '').replace(/\//g, '_') || 'root'}-${size}-${colorScheme}.png`;
        await page.screenshot({ path: path.join(outDir, name), fullPage: true });
      }
      const welcome = await browser.newContext({ viewport, colorScheme });
      const welcomePage = await welcome.newPage();
      await welcomePage.goto(`${baseUrl}/focus`);
      await welcomePage.waitForSelector('.welcome-card');
      await welcomePage.screenshot({ path: path.join(outDir, `welcome-${size}-${colorScheme}.png`), fullPage: true });
      await welcome.close();
      await context.close();
    }
  }
} finally {
  await browser.close();
}
console.log(`screenshots in ${outDir}`);

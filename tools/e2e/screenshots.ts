// Screenshots of every route of the student app at 390x844 and 1280x800, light and dark, for
// looking at (not a test). Usage:
//   node --import tsx tools/e2e/screenshots.ts <app url> <out dir> [email] [password]
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { accountSession, signedInContext, VIEWPORTS } from './app-driver.ts';
import { launchChromium } from './browser.ts';

const [baseUrl, outDir, email = 'screens@example.com', password = 'screens-password-1'] = process.argv.slice(2);
if (!baseUrl || !outDir) {
  console.error('usage: screenshots.ts <app url> <out dir> [email] [password]');
  process.exit(2);
}
const routes = (process.env.ROUTES ?? '/focus,/stats,/backups,/profile,/settings,/no-such-page').split(',');

await mkdir(outDir, { recursive: true });
const session = await accountSession(baseUrl, email, password);
const browser = await launchChromium();
try {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await signedInContext(browser, session, { viewport, colorScheme, reducedMotion: 'reduce' });
      const page = await context.newPage();
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

// Screenshots of the focus page's phone-remote panel, for looking at (not a test), at 390 x 844 and
// 1280 x 800, light and dark, in its states: paired and waiting, a phone connected, pairing off,
// the server gone. It runs its own servers on loopback (the QR code carries the server's address as
// the companion's tests do). Usage:
//   node --import tsx tools/e2e/phone-remote-screenshots.ts <out dir>
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { studentContext } from './companion/focus-page.ts';
import { startStudyhall } from './companion/studyhall-process.ts';
import { freePort } from '../testing/free-port.ts';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { VIEWPORTS } from './app-driver.ts';
import { launchChromium } from './browser.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';

const [outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: phone-remote-screenshots.ts <out dir>');
  process.exit(2);
}
await mkdir(outDir, { recursive: true });
// The server serves what is built; npm start's launcher would build these first.
await ensureViteBuild(VITE_BUILDS.web);
await ensureViteBuild(VITE_BUILDS.companion);
const temp = await makeTempDir('remote-screens');
const browser = await launchChromium();

async function shoot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(outDir as string, `${name}.png`) });
}

try {
  for (const pairing of [true, false]) {
    const port = await freePort();
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALBASE_PORT: String(await freePort()),
      DATA_DIR: path.join(temp.dir, `data-${pairing}`),
      LOG_DIR: path.join(temp.dir, `logs-${pairing}`),
      PIP_PAIRING: pairing ? 'on' : 'off',
    };
    const appUrl = `http://127.0.0.1:${port}`;
    const server = startStudyhall(env);
    await server.ready;
    const phoneUrl = 'http://192.168.1.20:3000';
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await studentContext(
          browser,
          appUrl,
          `screens-${pairing}-${size}-${colorScheme}@example.com`,
          phoneUrl,
        );
        const page = await context.newPage();
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        await page.goto(`${appUrl}/focus`);
        await page.getByRole('button', { name: 'Start' }).click();
        await page.getByRole('button', { name: /^Phone remote/ }).click();
        const panel = page.getByRole('region', { name: 'Phone remote' });
        await panel.getByRole('img', { name: /^QR code/ }).waitFor();
        const mode = pairing ? 'paired' : 'off';
        await shoot(page, `remote-${mode}-waiting-${size}-${colorScheme}`);
        if (pairing) {
          const code = ((await panel.getByLabel('Pairing code').textContent()) ?? '').replace(/\s/g, '');
          await fetch(`${appUrl}/api/pip/state`, { headers: { 'x-pip-code': code } });
          await panel.getByText('Phone connected').waitFor();
          await shoot(page, `remote-${mode}-connected-${size}-${colorScheme}`);
          await page.keyboard.press('Escape');
          await shoot(page, `remote-closed-connected-${size}-${colorScheme}`);
        }
        await context.close();
      }
    }
    if (!pairing) {
      // The server goes away under an open panel.
      const context = await studentContext(browser, appUrl, 'screens-gone@example.com', phoneUrl);
      const page = await context.newPage();
      await page.setViewportSize(VIEWPORTS.phone);
      await page.goto(`${appUrl}/focus`);
      await page.getByRole('button', { name: 'Start' }).click();
      await page.getByRole('button', { name: /^Phone remote/ }).click();
      await page
        .getByRole('region', { name: 'Phone remote' })
        .getByRole('img', { name: /^QR code/ })
        .waitFor();
      await server.stop();
      await page.getByText('Server not reachable').waitFor({ timeout: 15_000 });
      await shoot(page, 'remote-server-gone-phone-light');
      await context.close();
    } else {
      await server.stop();
    }
  }
} finally {
  await browser.close();
  await temp.remove();
}
console.log(`screenshots in ${outDir}`);

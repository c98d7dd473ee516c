// The community's browser tests share one fixture: a real `npm start` on a fresh DATA_DIR behind
// the app's Content-Security-Policy, one Chromium, and Ada, Bo and Cy signed up once. The group,
// buddy, start-alert and accessibility tests (community.e2e.test.ts), live presence and moderation
// all run against it in that order, in one file, so the server starts, the browser launches and the
// students sign up once rather than once per file. The server runs with what every part needs:
// plain-HTTP push endpoints for the loopback push service only (WEB_PUSH_ALLOW_HTTP) and admin
// mode with a secret for the console's moderation pages.
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import {
  collectCspViolations,
  startCspProxy,
  startStudyhall,
  type CspProxy,
  type CspViolation,
  type RunningStudyhall,
} from './app-driver.ts';
import { launchChromium } from './browser.ts';
import { dismissRestoreOffer, student, type Student } from './community-driver.ts';

export const ADMIN_SECRET = 'community-e2e-admin-secret-long';

export interface CommunityFixture {
  studyhall: RunningStudyhall;
  proxy: CspProxy;
  browser: Browser;
  /** The app's address, through the CSP proxy. */
  app: string;
  ada: Student;
  bo: Student;
  cy: Student;
  /** Contexts closed when the file ends. */
  contexts: BrowserContext[];
}

/** A page that adds the CSP violations it sees to `violations`, with a 15 s default timeout. */
export async function watchedPage(context: BrowserContext, violations: CspViolation[]): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const seen = await collectCspViolations(page);
  const push = seen.push.bind(seen);
  seen.push = (...items: CspViolation[]) => {
    violations.push(...items);
    return push(...items);
  };
  return page;
}

/** Opens a route of the app and waits for its heading, past a restore offer. */
export async function openRoute(page: Page, app: string, route: string): Promise<void> {
  await page.goto(`${app}${route}`);
  await page.locator('main h1').first().waitFor();
  await dismissRestoreOffer(page);
}

/**
 * Registers the file's beforeAll/afterAll that start and stop the fixture; its fields are there
 * from the first test on (call this before any other hook of the file).
 */
export function useCommunityFixture(): CommunityFixture {
  const fixture = { contexts: [] as BrowserContext[] } as CommunityFixture;
  let temp: Awaited<ReturnType<typeof makeTempDir>> | undefined;

  beforeAll(async () => {
    temp = await makeTempDir('community-e2e');
    await ensureViteBuild(VITE_BUILDS.web);
    fixture.studyhall = await startStudyhall(
      { dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') },
      { WEB_PUSH_ALLOW_HTTP: '1', ENABLE_ADMIN_MODE: 'true', ADMIN_SECRET },
    );
    fixture.proxy = await startCspProxy(fixture.studyhall.url);
    fixture.app = fixture.proxy.url;
    fixture.browser = await launchChromium();
    fixture.ada = await student(fixture.studyhall.url, 'Ada', 'ada');
    fixture.bo = await student(fixture.studyhall.url, 'Bo', 'bo_park');
    fixture.cy = await student(fixture.studyhall.url, 'Cy', 'cy_outsider');
  }, 240_000);

  afterAll(async () => {
    for (const context of fixture.contexts) await context.close().catch(() => undefined);
    await fixture.browser?.close();
    await fixture.proxy?.close();
    await fixture.studyhall?.stop();
    await temp?.remove();
  });

  return fixture;
}

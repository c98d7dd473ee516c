// Presence as it happens, in Debian's Chromium against a real `npm start` under the app's
// Content-Security-Policy: Ada and Bo share a group and are buddies; Ada starts a focus session in
// her browser and Bo's group board and buddies page, open in his, show her studying with no
// reload, then paused, then gone from "studying now" when she finishes. Each page first shows it is
// following presence over realtime (data-live). The board also polls every 15 s (for what no
// presence row announces, such as a removed member), so this test proves the pages follow with no
// reload; that realtime is what moves them, at a quarter of a second rather than a poll's 7.5 s on
// average, is the bench's business (tools/bench/presence-live.bench.ts).
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import {
  collectCspViolations,
  signedInContext,
  startCspProxy,
  startStudyhall,
  type CspProxy,
  type CspViolation,
  type RunningStudyhall,
} from './app-driver.ts';
import { launchChromium } from './browser.ts';
import { asStudent, dismissRestoreOffer, student, type Student } from './community-driver.ts';
import { joinedGroupOfTwo, sharingContext } from './presence-driver.ts';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let studyhall: RunningStudyhall;
let proxy: CspProxy;
let browser: Browser;
let ada: Student;
let bo: Student;
let groupId = '';
const contexts: BrowserContext[] = [];
const violations: CspViolation[] = [];

async function pageIn(context: BrowserContext, route: string): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const seen = await collectCspViolations(page);
  const push = seen.push.bind(seen);
  seen.push = (...items: CspViolation[]) => {
    violations.push(...items);
    return push(...items);
  };
  await page.goto(`${proxy.url}${route}`);
  await page.locator('main h1').first().waitFor();
  await dismissRestoreOffer(page);
  return page;
}

beforeAll(async () => {
  temp = await makeTempDir('presence-e2e');
  await ensureViteBuild(VITE_BUILDS.web);
  studyhall = await startStudyhall({ dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') });
  proxy = await startCspProxy(studyhall.url);
  browser = await launchChromium();
  ada = await student(studyhall.url, 'Ada', 'ada');
  bo = await student(studyhall.url, 'Bo', 'bo_park');
  groupId = await joinedGroupOfTwo(studyhall.url, ada, bo, 'Night Shift Anatomy');
  const request = await asStudent<string>(studyhall.url, bo, '/rest/v1/rpc/community_request_buddy', {
    body: { p_handle: 'ada' },
  });
  await asStudent(studyhall.url, ada, '/rest/v1/rpc/community_respond_buddy', {
    body: { p_connection_id: request, p_accept: true },
  });
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await proxy?.close();
  await studyhall?.stop();
  await temp?.remove();
});

describe('presence, live', () => {
  it("shows Ada's start, pause and finish on Bo's board and buddies page without a reload", async () => {
    const adaContext = await sharingContext(browser, studyhall.url, ada, { width: 1280, height: 800 });
    // Bo's board and buddies page in two windows, each the page in front (as two devices would be).
    const boContext = await signedInContext(browser, bo.session, { viewport: { width: 1280, height: 800 } });
    const boSecond = await signedInContext(browser, bo.session, { viewport: { width: 390, height: 844 } });
    contexts.push(adaContext, boContext, boSecond);
    const board = await pageIn(boContext, `/groups/${groupId}`);
    const buddies = await pageIn(boSecond, '/buddies');
    const focus = await pageIn(adaContext, '/focus');
    await board.locator('section.board[data-live="true"]').waitFor();
    await buddies.locator('.buddy-grid[data-live="true"]').waitFor();
    // A page that reloads loses this mark.
    for (const page of [board, buddies]) await page.evaluate(() => ((window as { __kept?: boolean }).__kept = true));
    const adaTile = board.locator('.board-tile', { hasText: 'Ada' });
    const adaCard = buddies.locator('.buddy-card', { hasText: 'Ada' });
    expect(await adaTile.count()).toBe(0);
    expect(await adaCard.locator('.buddy-now').textContent()).toContain('Offline');

    await focus.getByRole('button', { name: 'Start' }).click();
    await board.locator('.board-tile.board-studying', { hasText: 'Ada' }).waitFor();
    await buddies.locator('.buddy-card.buddy-studying', { hasText: 'Ada' }).waitFor();
    expect(await board.getByRole('region', { name: 'Studying now' }).textContent()).toContain('1 member studying');

    await focus.getByRole('button', { name: 'Pause' }).click();
    await board.locator('.board-tile.board-idle', { hasText: 'Ada' }).waitFor();
    await buddies.locator('.buddy-card.buddy-idle', { hasText: 'Ada' }).waitFor();

    await focus.getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => adaTile.count()).toBe(0);
    await board.locator('.board-rest-row', { hasText: 'Ada' }).waitFor();
    await buddies.locator('.buddy-card.buddy-offline', { hasText: 'Ada' }).waitFor();

    for (const page of [board, buddies])
      expect(await page.evaluate(() => (window as { __kept?: boolean }).__kept)).toBe(true);
  }, 90_000);

  it('raised no Content-Security-Policy violation', () => {
    expect(violations).toEqual([]);
  });
});

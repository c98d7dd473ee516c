// Presence as it happens, in Debian's Chromium against a real `npm start` under the app's
// Content-Security-Policy: Ada and Bo share a group and are buddies; Ada starts a focus session in
// her browser and Bo's group board and buddies page, open in his, show her studying with no
// reload, then paused, then gone from "studying now" when she finishes. Each page first shows it is
// following presence over realtime (data-live). The board also polls every 15 s (for what no
// presence row announces, such as a removed member), so this test proves the pages follow with no
// reload; that realtime is what moves them, at a quarter of a second rather than a poll's 7.5 s on
// average, is the bench's business (tools/bench/presence-live.bench.ts).
//
// It runs in community.e2e.test.ts, on its server, after the community's own tests: Ada and Bo are
// buddies from there; the group here is the community fixture's group of the two.
import type { BrowserContext, Page } from 'playwright-core';
import { signedInContext, type CspViolation } from './app-driver.ts';
import { openRoute, watchedPage } from './community-fixture.ts';
import { expect, type SuiteTest } from './fixtures.ts';
import { sharingContext } from './presence-driver.ts';

export function describePresenceLive(test: SuiteTest): void {
  const violations: CspViolation[] = [];

  async function pageIn(context: BrowserContext, app: string, route: string): Promise<Page> {
    const page = await watchedPage(context, violations);
    await openRoute(page, app, route);
    return page;
  }

  test.describe('presence, live', () => {
    test("shows Ada's start, pause and finish on Bo's board and buddies page without a reload", async ({
      browser,
      studyhall,
      app,
      ada,
      bo,
      group,
    }) => {
      test.setTimeout(90_000);
      const adaContext = await sharingContext(browser, studyhall.url, ada, { width: 1280, height: 800 });
      // Bo's board and buddies page in two windows, each the page in front (as two devices would be).
      const boContext = await signedInContext(browser, bo.session, { viewport: { width: 1280, height: 800 } });
      const boSecond = await signedInContext(browser, bo.session, { viewport: { width: 390, height: 844 } });
      const board = await pageIn(boContext, app, `/groups/${group.id}`);
      const buddies = await pageIn(boSecond, app, '/buddies');
      const focus = await pageIn(adaContext, app, '/focus');
      // Ada has backups from the community tests before: should one hold what the server lacks, her
      // fresh browser is offered it once the app has asked the server, which can be after the page
      // has drawn: decline it whenever.
      const offer = focus.getByRole('dialog', { name: 'Restore your backup on this device?' });
      await focus.addLocatorHandler(offer, () => offer.getByRole('button', { name: 'Not now' }).click());
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
    });

    test('raised no Content-Security-Policy violation', () => {
      expect(violations).toEqual([]);
    });
  });
}

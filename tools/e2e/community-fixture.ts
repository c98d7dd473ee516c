// The community fixture: the students the community's browser tests (and any other suite) meet,
// and two of them in a group. Each is a worker-scoped Playwright fixture of the suite's own server
// (fixtures.ts), made on first use and kept for the whole file, as a class keeps its students:
// - `ada`, `bo`, `cy`: signed up through the gateway with a display name and a handle (Cy is the
//   one who belongs to no group of theirs);
// - `group`: Ada's private, invite-only group that Bo joined by invite: two students in a group.
// Also the steps community pages share: a page that reports CSP violations, a route opened past
// the restore offer of a fresh browser, and the privacy switches a student turns on to be seen studying.
import type { BrowserContext, Page } from 'playwright-core';
import type { Fixtures } from '@playwright/test';
import { expect } from './expect.ts';
import { collectCspViolations, type CspViolation, type RunningStudyhall } from './app-driver.ts';
import { dismissRestoreOffer, student, type Student } from './community-driver.ts';
import { joinedGroupOfTwo } from './presence-driver.ts';

export interface Group {
  id: string;
  name: string;
  /** Ada, who made it. */
  owner: Student;
  /** Bo, who joined it by invite. */
  member: Student;
}

export interface CommunityFixture {
  ada: Student;
  bo: Student;
  cy: Student;
  group: Group;
}

/** The fixtures, for a suite's test.extend; `studyhall` is the suite's server. */
export const communityFixtures: Fixtures<object, CommunityFixture, object, { studyhall: RunningStudyhall }> = {
  ada: [({ studyhall }, use) => student(studyhall.url, 'Ada', 'ada').then(use), { scope: 'worker' }],
  bo: [({ studyhall }, use) => student(studyhall.url, 'Bo', 'bo_park').then(use), { scope: 'worker' }],
  cy: [({ studyhall }, use) => student(studyhall.url, 'Cy', 'cy_outsider').then(use), { scope: 'worker' }],
  group: [
    async ({ studyhall, ada, bo }, use) => {
      const name = 'Evening Physiology';
      await use({ id: await joinedGroupOfTwo(studyhall.url, ada, bo, name), name, owner: ada, member: bo });
    },
    { scope: 'worker' },
  ],
};

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

/** On the privacy page: takes part in the community and shares what she studies now, each switch saved. */
export async function shareWhatIStudy(page: Page): Promise<void> {
  for (const [name, saved] of [
    ['Take part in the community', 'Saved: Community sharing on.'],
    ['Share what you are studying now', 'Saved: Share what you are studying now on.'],
  ] as const) {
    await page.getByRole('switch', { name }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: saved }).count()).toBe(1);
  }
}

// Playwright Test fixtures for the browser suites (*.e2e.test.ts). A suite makes its own test
// function, `const test = studyhallTest({ env })`, and runs its tests in order against what that
// function sets up, once for the whole file:
// - `studyhall`: `npm start` (gateway/src/main.ts) on free ports with its own DATA_DIR and LOG_DIR in
//   a temporary folder, with `env` besides (admin mode, push to a plain-HTTP receiver, ...);
// - `cspProxy` and `app`: a proxy in front of it that adds the app's Content-Security-Policy, and
//   the address pages open through it;
// - `device`: the project's device (phone or desktop: playwright.config.ts), as context options;
// - `ada`, `bo`, `cy`, `group`: the community fixture (community-fixture.ts);
// - `phoneRemote`: the phone companion, opened at a link in a phone of its own.
// Every fixture here is worker-scoped, and each call of studyhallTest makes fixtures of its own, so
// no two files ever share a worker and so a server: each suite has its students, groups and mail
// to itself, and a failed suite's retry starts from a fresh server.
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { test as base } from '@playwright/test';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { startCspProxy, startStudyhall, type CspProxy, type RunningStudyhall } from './app-driver.ts';
import { DEVICES, type Device } from './browser.ts';
import { communityFixtures, type CommunityFixture } from './community-fixture.ts';
import { openPhone, type Phone } from './companion/phone.ts';

export { expect } from './expect.ts';

export interface SuiteOptions {
  /** More environment for the suite's `npm start`; may name its ports (PORT, LOCALBASE_PORT). */
  env?: Record<string, string> | (() => Promise<Record<string, string>>);
}

export interface PhoneRemoteOptions {
  colorScheme?: 'light' | 'dark';
  /** false: the remote's answers as the server sent them (see tools/e2e/companion/phone.ts). */
  addCsp?: boolean;
}

export interface ServerFixtures {
  studyhall: RunningStudyhall;
  cspProxy: CspProxy;
  /** The app's address through the CSP proxy. */
  app: string;
  device: Device;
  /** Opens the phone remote at `link` in a phone (390 x 844, touch) of its own, closed with the suite. */
  phoneRemote: (link: string, options?: PhoneRemoteOptions) => Promise<Phone>;
}

export function studyhallTest(options: SuiteOptions = {}) {
  return base
    .extend<object, ServerFixtures>({
      studyhall: [
        // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
        async ({}, use) => {
          const dir = await makeReachableTempDir('studyhall-e2e-');
          const env = typeof options.env === 'function' ? await options.env() : (options.env ?? {});
          const studyhall = await startStudyhall(
            { dataDir: path.join(dir, 'data'), logDir: path.join(dir, 'logs') },
            env,
          );
          try {
            await use(studyhall);
          } finally {
            await studyhall.stop();
            await rm(dir, { recursive: true, force: true });
          }
        },
        // A fresh DATA_DIR: the embedded PostgreSQL's initdb and every migration, on a busy machine.
        { scope: 'worker', timeout: 240_000 },
      ],
      cspProxy: [
        async ({ studyhall }, use) => {
          const proxy = await startCspProxy(studyhall.url);
          await use(proxy);
          await proxy.close();
        },
        { scope: 'worker' },
      ],
      app: [({ cspProxy }, use) => use(cspProxy.url), { scope: 'worker' }],
      device: [
        // eslint-disable-next-line no-empty-pattern -- as above
        ({}, use, workerInfo) => use(workerInfo.project.name === 'phone' ? DEVICES.phone : DEVICES.desktop),
        { scope: 'worker' },
      ],
      phoneRemote: [
        async ({ browser }, use) => {
          const phones: Phone[] = [];
          await use(async (link, { colorScheme = 'light', addCsp = true } = {}) => {
            const phone = await openPhone(browser, link, colorScheme, { addCsp });
            phones.push(phone);
            return phone;
          });
          for (const phone of phones) await phone.context.close().catch(() => undefined);
        },
        { scope: 'worker' },
      ],
    })
    .extend<object, CommunityFixture>(communityFixtures);
}

/** A suite's test function, for the parts of a suite kept in files of their own (*.suite.ts). */
export type SuiteTest = ReturnType<typeof studyhallTest>;

// `npm run test:e2e`: the browser suites (*.e2e.test.ts) under Playwright Test, in Debian's
// Chromium (never a downloaded browser), each suite against its own `npm start` (tools/e2e/fixtures.ts).
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions, DEVICES } from './tools/e2e/browser.ts';
import { useMemoryScratch } from './tools/testing/memory-scratch.ts';

// Each suite's server (its new cluster) and browser profile in memory (tools/testing/memory-scratch.ts).
useMemoryScratch();

/**
 * Suites that draw the student's screens at the project's width (the `device` fixture): they run in
 * both projects. The journeys a student makes on a phone elsewhere (focus, chat and the phone
 * remote at the plain-HTTP address, the phase-end alarm, Mira's sign-up) already open a 390 x 844
 * touch phone of their own and take screenshots at both widths: run again at the phone's width
 * they would double the stage's time and test nothing more, so they run on the desktop only, as
 * do the console and admin suites (tools/e2e/README.md).
 */
const PHONE_JOURNEYS = ['**/tools/e2e/dark-mode.e2e.test.ts'];
/** Suites about the phone itself, whose phones are the phone project's device. */
const PHONE_ONLY = ['**/companion/phone-remote.e2e.test.ts'];
const NOT_SUITES = ['**/node_modules/**', '**/web/dist/**', '**/.data/**', '**/.tmp/**', '**/.build/**'];

export const REPORT_DIR = '.tmp/playwright-report';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.e2e.test.ts',
  testIgnore: NOT_SUITES,
  globalSetup: './tools/e2e/global-setup.ts',
  outputDir: '.tmp/playwright-results',
  reporter: [['list'], ['html', { outputFolder: REPORT_DIR, open: 'never' }]],
  // Two suites at a time, each with its own server (own port, own data directory) and browser.
  // On a quiet 2-core machine this was the fastest (tools/e2e/README.md#workers), and the waits the
  // tests hold people to (a push within 5 s, a removal seen within a second) held.
  workers: 2,
  fullyParallel: false,
  // A failed suite runs once more, recording a trace of every test. A test that passes only then is
  // listed as flaky in the output and the HTML report, with its trace: on a shared 2-core machine a
  // wait can miss by a moment, and the trace says whether it was the machine or the page.
  retries: 1,
  failOnFlakyTests: false,
  timeout: 60_000,
  // expect.poll's default wait: a poll that needs longer says so.
  expect: { timeout: 1_000 },
  use: {
    launchOptions: chromiumLaunchOptions(),
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'desktop', use: { ...DEVICES.desktop }, testIgnore: [...NOT_SUITES, ...PHONE_ONLY] },
    { name: 'phone', use: { ...DEVICES.phone }, testMatch: [...PHONE_JOURNEYS, ...PHONE_ONLY] },
  ],
});

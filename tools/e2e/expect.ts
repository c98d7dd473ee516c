// Playwright Test's expect, with expect.poll asking every 50 ms unless a call says otherwise.
// Its own default asks at 100, 250, 500 and then every 1000 ms, which within the 1 s most polls
// here allow (playwright.config.ts) is three looks: a page that is right at 900 ms would fail. The
// suites were written for a poll that looks every 50 ms, and a wait should end when the page is
// right, not at the next of a few fixed moments.
import { expect as playwrightExpect } from '@playwright/test';

export const POLL_INTERVALS = [50];

const poll: typeof playwrightExpect.poll = (actual, messageOrOptions) =>
  playwrightExpect.poll(
    actual,
    typeof messageOrOptions === 'string'
      ? { message: messageOrOptions, intervals: POLL_INTERVALS }
      : { intervals: POLL_INTERVALS, ...messageOrOptions },
  );

export const expect: typeof playwrightExpect = new Proxy(playwrightExpect, {
  get: (target, key, receiver) => (key === 'poll' ? poll : Reflect.get(target, key, receiver)),
});

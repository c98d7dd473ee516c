// Benchmark: live presence in the real app, from Ada's Start click on her focus page to the moment
// Bo's group board, open in another browser context, shows her studying; and from her Finish click
// to the board no longer showing her among those studying. A fresh `npm start` (gateway + embedded
// backend) in Debian's Chromium; Ada and Bo in one private group. The path measured: the click ->
// the timer's state -> the app's heartbeat (community_heartbeat) -> the trigger writing presence_feed
// -> realtime's per-subscriber RLS check -> Bo's page re-reading community_get_group_board -> render.
// Both ends stamp with performance.timeOrigin + performance.now(), a clock every page of one
// browser shares, so no Node round trip is counted. A second figure, side by side in the same
// rounds: the same Start reaching the phone remote (`/companion/`, 390 x 844, touch), from the click
// to the remote showing Pause, its control while a phase runs (the focus page's snapshot post ->
// the relay -> the remote's poll -> render), in a third context of the same browser so it shares
// the clock; the server runs with PIP_PAIRING=off so the remote needs no pairing code (pairing
// costs nothing measurable: README-companion.md).
// Not a test: it never fails on a time.
//   node --import tsx tools/bench/presence-live.bench.ts [--starts 50]
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import { signedInContext, startStudyhall } from '../e2e/app-driver.ts';
import { launchChromium } from '../e2e/browser.ts';
import { dismissRestoreOffer, student } from '../e2e/community-driver.ts';
import { openPhone } from '../e2e/companion/phone.ts';
import { joinedGroupOfTwo, sharingContext } from '../e2e/presence-driver.ts';

const options = z
  .object({ starts: z.coerce.number().int().min(5).max(500), warmup: z.coerce.number().int().min(0).max(20) })
  .parse(
    parseArgs({ options: { starts: { type: 'string', default: '50' }, warmup: { type: 'string', default: '3' } } })
      .values,
  );

declare global {
  interface Window {
    /** Each time Ada's tile appeared among those studying, and each time it left them. */
    __shown: number[];
    __gone: number[];
    /** Each click on Start, and on Finish. */
    __start: number[];
    __finish: number[];
    /** Each time the phone remote started showing Pause. */
    __phone: number[];
  }
}

async function watchBoard(page: Page): Promise<void> {
  await page.evaluate('window.__name = (fn) => fn');
  await page.evaluate(() => {
    const stamp = () => performance.timeOrigin + performance.now();
    window.__shown = [];
    window.__gone = [];
    let studying = false;
    const note = () => {
      const now = [...document.querySelectorAll('.board-tile.board-studying .board-name')].some((node) =>
        (node.textContent ?? '').startsWith('Ada'),
      );
      if (now !== studying) (now ? window.__shown : window.__gone).push(stamp());
      studying = now;
    };
    note();
    new MutationObserver(note).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

async function watchClicks(page: Page): Promise<void> {
  await page.evaluate('window.__name = (fn) => fn');
  await page.evaluate(() => {
    window.__start = [];
    window.__finish = [];
    document.addEventListener(
      'click',
      (event) => {
        const button = (event.target as HTMLElement | null)?.closest('button');
        const label = button?.textContent?.trim();
        if (label === 'Start') window.__start.push(performance.timeOrigin + performance.now());
        if (label === 'Finish') window.__finish.push(performance.timeOrigin + performance.now());
      },
      { capture: true },
    );
  });
}

/** Notes each time the phone remote starts showing Pause, its control while a phase runs. */
async function watchPhone(page: Page): Promise<void> {
  await page.evaluate('window.__name = (fn) => fn');
  await page.evaluate(() => {
    window.__phone = [];
    let running = false;
    const note = () => {
      const now = document.querySelector('button[aria-label="Pause"]') !== null;
      if (now && !running) window.__phone.push(performance.timeOrigin + performance.now());
      running = now;
    };
    note();
    new MutationObserver(note).observe(document.body, { childList: true, subtree: true, attributes: true });
  });
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

function summary(values: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1] ?? Number.NaN };
}

const format = (values: number[]) => {
  const figures = summary(values);
  return `p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms, max ${figures.max.toFixed(1)} ms`;
};

const temp = await makeTempDir('presence-bench');
await ensureViteBuild(VITE_BUILDS.web);
await ensureViteBuild(VITE_BUILDS.companion);
const studyhall = await startStudyhall(
  { dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') },
  { PIP_PAIRING: 'off' },
);
const browser = await launchChromium();
try {
  const ada = await student(studyhall.url, 'Ada', 'ada');
  const bo = await student(studyhall.url, 'Bo', 'bo_park');
  const groupId = await joinedGroupOfTwo(studyhall.url, ada, bo, 'Bench Hall');

  const adaContext = await sharingContext(browser, studyhall.url, ada, { width: 1280, height: 800 });
  const focus = await adaContext.newPage();
  await focus.goto(`${studyhall.url}/focus`);
  await dismissRestoreOffer(focus);
  await focus.getByRole('button', { name: 'Start' }).waitFor();
  await watchClicks(focus);

  const boContext = await signedInContext(browser, bo.session, {
    viewport: { width: 1280, height: 800 },
    reducedMotion: 'reduce',
  });
  const board = await boContext.newPage();
  await board.goto(`${studyhall.url}/groups/${groupId}`);
  await dismissRestoreOffer(board);
  // Following presence over realtime; its 15 s poll would land 7.5 s after a click on average.
  await board.locator('section.board[data-live="true"]').waitFor({ timeout: 30_000 });
  await watchBoard(board);
  const phone = (await openPhone(browser, `${studyhall.url}/companion/`)).page;
  await phone
    .getByRole('button', { name: 'Start' })
    .or(phone.getByRole('button', { name: 'Resume' }))
    .first()
    .waitFor({ timeout: 30_000 });
  await watchPhone(phone);

  const started: number[] = [];
  const stopped: number[] = [];
  const onPhone: number[] = [];
  const total = options.warmup + options.starts;
  for (let round = 0; round < total; round++) {
    await focus.getByRole('button', { name: 'Start' }).click();
    await board.waitForFunction((count) => window.__shown.length >= count, round + 1, {
      polling: 'raf',
      timeout: 20_000,
    });
    await phone.waitForFunction((count) => window.__phone.length >= count, round + 1, {
      polling: 'raf',
      timeout: 20_000,
    });
    await focus.getByRole('button', { name: 'Finish' }).click();
    await board.waitForFunction((count) => window.__gone.length >= count, round + 1, {
      polling: 'raf',
      timeout: 20_000,
    });
    await focus.getByRole('button', { name: 'Start' }).waitFor();
    if (round < options.warmup) continue;
    const clicks = await focus.evaluate(() => ({ start: window.__start, finish: window.__finish }));
    const seen = await board.evaluate(() => ({ shown: window.__shown, gone: window.__gone }));
    const start = clicks.start[round];
    const finish = clicks.finish[round];
    const shown = seen.shown[round];
    const gone = seen.gone[round];
    const phoned = (await phone.evaluate(() => window.__phone))[round];
    if (
      start === undefined ||
      finish === undefined ||
      shown === undefined ||
      gone === undefined ||
      phoned === undefined
    )
      throw new Error(`no timing for round ${round}`);
    started.push(shown - start);
    onPhone.push(phoned - start);
    stopped.push(gone - finish);
  }

  console.log(
    `presence, ${options.starts} starts and finishes after ${options.warmup} to warm up (embedded backend, Debian Chromium), load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  console.log(`  Start click -> Bo's board shows her studying:  ${format(started)}`);
  console.log(`  Finish click -> Bo's board shows her stopped:  ${format(stopped)}`);
  console.log(`  Start click -> her phone remote shows it:     ${format(onPhone)}`);
  const p95 = summary(started).p95;
  const phoneP95 = summary(onPhone).p95;
  console.log(
    `  target: p95 < 1000 ms from Start: board ${p95 < 1000 ? 'met' : 'missed'} (${p95.toFixed(1)} ms), ` +
      `phone ${phoneP95 < 1000 ? 'met' : 'missed'} (${phoneP95.toFixed(1)} ms)`,
  );
} finally {
  await browser.close();
  await studyhall.stop();
  await temp.remove();
}

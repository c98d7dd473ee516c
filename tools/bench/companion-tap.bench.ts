// Phone remote benchmark (not a test; it prints figures and ratios measured side by side in one run):
// a tap on Correct in the remote (390 x 844, touch, Chromium), from the finger lifting until the
// focus page's DOM shows the new count, over 100 taps, against real `npm start` servers. The path is:
// touch -> the remote's POST /api/pip/action -> the gateway's SSE frame -> the focus page applies it
// and renders. Measured interleaved, round by round, so that the machine's load hits all alike:
//   1. the remote's tap, pairing off;
//   2. the same action posted by plain fetch from the phone tab (the relay alone, no remote UI);
//   3. the remote's tap on a second server with PIP_PAIRING=on.
// The focus page is the web app's real /focus page, signed in, as in the companion's browser tests
// (tools/e2e/companion/focus-page.ts); the phone opens the link of its QR code. Target: p99 under 100 ms.
// Run: node --import tsx tools/bench/companion-tap.bench.ts [--taps N]
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { openPhone, type Phone } from '../e2e/companion/phone.ts';
import { openFocusPage, type FocusPage } from '../e2e/companion/focus-page.ts';
import { startStudyhall, type StudyhallProcess } from '../e2e/companion/studyhall-process.ts';
import { freePort } from '../testing/free-port.ts';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { launchChromium } from '../e2e/browser.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';

const tapsArgument = process.argv.indexOf('--taps');
const TAPS = tapsArgument === -1 ? 100 : Number(process.argv[tapsArgument + 1]);
const WARMUP = 5;
// A student does not tap faster than this; it also lets the page's own state post settle.
const PAUSE_MS = 60;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/** Both tabs stamp with performance.timeOrigin + performance.now(): one machine clock, sub-millisecond. */
async function watchCounter(focus: FocusPage): Promise<void> {
  await focus.page.evaluate(() => {
    const stamps: number[] = [];
    const counter = document.getElementById('count-correct');
    if (!counter) throw new Error('no counter on the focus page');
    new MutationObserver(() => stamps.push(performance.timeOrigin + performance.now())).observe(counter, {
      childList: true,
      characterData: true,
      subtree: true,
    });
    Object.assign(window, { __updates: stamps });
  });
}

async function stampTaps(phone: Page): Promise<void> {
  await phone.evaluate(() => {
    const stamps: number[] = [];
    // Capture phase, when the finger lifts: a button acts on release (the click follows touchend), so
    // this is where the remote's latency starts; how long the finger rests is the student's, not ours.
    document.addEventListener('touchend', () => stamps.push(performance.timeOrigin + performance.now()), {
      capture: true,
      passive: true,
    });
    Object.assign(window, { __taps: stamps });
  });
}

const read = (page: Page, name: string) =>
  page.evaluate((key) => (window as unknown as Record<string, number[]>)[key] ?? [], name);

interface Setup {
  studyhall: StudyhallProcess;
  focus: FocusPage;
  phone: Phone;
  correct: Locator;
}

async function setUp(browser: Browser, env: Record<string, string>, pairing: boolean): Promise<Setup> {
  const studyhall = startStudyhall({ ...env, PIP_PAIRING: pairing ? 'on' : 'off' });
  await studyhall.ready;
  const appUrl = `http://127.0.0.1:${env.PORT}`;
  const focus = await openFocusPage(browser, appUrl, {
    email: `bench-${pairing ? 'on' : 'off'}@example.com`,
    subject: 'Benchmark',
  });
  await watchCounter(focus);
  const phone = await openPhone(browser, focus.qrLink);
  await phone.page.locator('.subject-name').waitFor({ timeout: 10_000 });
  await stampTaps(phone.page);
  return { studyhall, focus, phone, correct: phone.page.getByRole('button', { name: 'Correct', exact: true }) };
}

/** One action until the focus page's counter moved; the latency from the action's own stamp. */
async function once(
  focus: FocusPage,
  act: () => Promise<unknown>,
  stampsFrom: () => Promise<number[]>,
): Promise<number> {
  const before = await focus.count('Correct');
  await act();
  await focus.waitForCount('Correct', before + 1, 5_000);
  const starts = await stampsFrom();
  const updates = await read(focus.page, '__updates');
  return (updates.at(-1) ?? Number.NaN) - (starts.at(-1) ?? Number.NaN);
}

function plainPost(page: Page): Promise<void> {
  return page.evaluate(() => {
    const stamps = ((window as unknown as { __posts?: number[] }).__posts ??= []);
    stamps.push(performance.timeOrigin + performance.now());
    void fetch('/api/pip/action', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"action":"correct"}',
    });
  });
}

function report(label: string, values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `${label}: ${sorted.length} taps, p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}, max ${fmt(sorted.at(-1) ?? Number.NaN)}`,
  );
  return sorted;
}

async function serverEnv(temp: string, name: string): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp, name, 'data'),
    LOG_DIR: path.join(temp, name, 'logs'),
  };
}

// The server serves what is built; npm start's launcher would build these first.
await ensureViteBuild(VITE_BUILDS.web);
await ensureViteBuild(VITE_BUILDS.companion);
const temp = await makeTempDir('companion-bench');
const browser = await launchChromium();
const setups: Setup[] = [];
try {
  // One after the other: two first boots at once would only slow both.
  const off = await setUp(browser, await serverEnv(temp.dir, 'off'), false);
  setups.push(off);
  const on = await setUp(browser, await serverEnv(temp.dir, 'on'), true);
  setups.push(on);
  // Tail latencies here follow what else the machine runs: say how busy it was.
  console.log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min)`,
  );

  const tapOff: number[] = [];
  const postOff: number[] = [];
  const tapOn: number[] = [];
  for (let round = 0; round < WARMUP + TAPS; round++) {
    const tapped = await once(
      off.focus,
      () => off.correct.tap(),
      () => read(off.phone.page, '__taps'),
    );
    await pause();
    const posted = await once(
      off.focus,
      () => plainPost(off.phone.page),
      () => read(off.phone.page, '__posts'),
    );
    await pause();
    const paired = await once(
      on.focus,
      () => on.correct.tap(),
      () => read(on.phone.page, '__taps'),
    );
    await pause();
    if (round < WARMUP) continue;
    tapOff.push(tapped);
    postOff.push(posted);
    tapOn.push(paired);
  }

  const a = report('remote tap -> focus page DOM (pairing off)', tapOff);
  const b = report('plain fetch POST -> focus page DOM (relay alone)', postOff);
  const c = report('remote tap -> focus page DOM (PIP_PAIRING=on)', tapOn);
  const ratio = (x: number[], y: number[], p: number) => (percentile(x, p) / percentile(y, p)).toFixed(2);
  console.log(
    `ratios: remote tap / plain POST p50 ${ratio(a, b, 50)}, p99 ${ratio(a, b, 99)}; pairing on / off p50 ${ratio(c, a, 50)}, p99 ${ratio(c, a, 99)}`,
  );
  const worst = Math.max(percentile(a, 99), percentile(c, 99));
  console.log(`target p99 < 100 ms: ${worst < 100 ? 'met' : 'NOT met'} (worst p99 ${fmt(worst)})`);
  console.log(
    `machine after: load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' / ')}`,
  );
  for (const { phone } of setups) {
    const problems = await phone.problems();
    if (problems.length > 0) console.log(`problems on a phone: ${problems.join('; ')}`);
  }
} finally {
  await browser.close();
  for (const { studyhall } of setups) await studyhall.stop();
  await temp.remove();
}

// Phone remote benchmark (not a test; it prints figures and ratios measured side by side in one run):
// a tap on Correct in the remote (390 x 844, touch, Chromium) until the focus page's DOM shows the
// new count, over 100 taps, against a real `npm start`. The path is: touch -> the remote's POST
// /api/pip/action -> the gateway's SSE frame -> the focus page applies it and renders. Beside it, the
// same action posted by plain fetch from the phone page (the relay alone, no remote UI), and the
// remote's tap with PIP_PAIRING=on. The focus page is the simulated one of the companion's browser
// tests. Target: p99 under 100 ms.
// Run: node --import tsx tools/bench/companion-tap.bench.ts [--taps N]
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openPhone } from '../../companion/e2e/phone.ts';
import { openSimulatedFocusPage, type FocusPage } from '../../companion/e2e/simulated-focus-page.ts';
import { freePort, startStudyhall } from '../../companion/e2e/studyhall-process.ts';
import { makeTempDir } from '../../gateway/test/helpers.ts';
import { launchChromium } from '../e2e/browser.ts';

const tapsArgument = process.argv.indexOf('--taps');
const TAPS = tapsArgument === -1 ? 100 : Number(process.argv[tapsArgument + 1]);
const WARMUP = 5;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

/** Both tabs stamp with performance.timeOrigin + performance.now(): one machine clock, sub-millisecond. */
async function watchCounter(focus: FocusPage): Promise<void> {
  await focus.page.evaluate(() => {
    const stamps: number[] = [];
    const counter = document.getElementById('focus-correct');
    if (!counter) throw new Error('no counter on the focus page');
    new MutationObserver(() => stamps.push(performance.timeOrigin + performance.now())).observe(counter, { childList: true, characterData: true, subtree: true });
    Object.assign(window, { __updates: stamps });
  });
}

async function stampTaps(phone: Page): Promise<void> {
  await phone.evaluate(() => {
    const stamps: number[] = [];
    // Capture phase, at the first touch: the moment the student's finger lands.
    document.addEventListener('touchstart', () => stamps.push(performance.timeOrigin + performance.now()), { capture: true, passive: true });
    Object.assign(window, { __taps: stamps });
  });
}

const read = (page: Page, name: string) => page.evaluate((key) => (window as unknown as Record<string, number[]>)[key] ?? [], name);

async function measure(label: string, focus: FocusPage, act: (index: number) => Promise<void>, stampsFrom: () => Promise<number[]>): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < WARMUP + TAPS; index++) {
    const before = (await focus.counters()).correct;
    await act(index);
    await focus.waitForCounter('correct', before + 1, 5_000);
    const starts = await stampsFrom();
    const updates = await read(focus.page, '__updates');
    const latency = (updates.at(-1) ?? Number.NaN) - (starts.at(-1) ?? Number.NaN);
    if (index >= WARMUP) latencies.push(latency);
    // A student does not tap faster than this; it also lets the page's own state post settle.
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`${label}: ${TAPS} taps, p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}, max ${fmt(sorted.at(-1) ?? Number.NaN)}`);
  return sorted;
}

async function run(pairing: boolean, browser: Awaited<ReturnType<typeof launchChromium>>, env: Record<string, string>, appUrl: string) {
  const studyhall = startStudyhall(pairing ? { ...env, PIP_PAIRING: 'on' } : env);
  await studyhall.ready;
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const focus = await openSimulatedFocusPage(desktop, appUrl, { subject: 'Benchmark', durationMs: 60 * 60_000, pairing });
    await watchCounter(focus);
    const phone = await openPhone(browser, `${appUrl}/companion/${focus.code ? `#code=${focus.code}` : ''}`);
    await phone.page.locator('.subject-name').waitFor({ timeout: 10_000 });
    await stampTaps(phone.page);
    const correct = phone.page.getByRole('button', { name: 'Correct', exact: true });
    const mode = pairing ? 'PIP_PAIRING=on' : 'pairing off';
    const tapped = await measure(`remote tap -> focus page DOM (${mode})`, focus, () => correct.tap(), () => read(phone.page, '__taps'));
    let direct: number[] | undefined;
    if (!pairing) {
      direct = await measure(
        'plain fetch POST -> focus page DOM (relay alone)',
        focus,
        () =>
          phone.page.evaluate(() => {
            const stamps = ((window as unknown as { __posts?: number[] }).__posts ??= []);
            stamps.push(performance.timeOrigin + performance.now());
            void fetch('/api/pip/action', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"correct"}' });
          }),
        () => read(phone.page, '__posts'),
      );
    }
    const problems = await phone.problems();
    if (problems.length > 0) console.log(`  problems on the phone: ${problems.join('; ')}`);
    await phone.context.close();
    return { tapped, direct };
  } finally {
    await desktop.close();
    await studyhall.stop();
  }
}

const temp = await makeTempDir('companion-bench');
const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const env = { PORT: String(port), HOST: '127.0.0.1', LOCALBASE_PORT: String(await freePort()), DATA_DIR: path.join(temp.dir, 'data'), LOG_DIR: path.join(temp.dir, 'logs') };
const browser = await launchChromium();
// Tail latencies here follow what else the machine runs: say how busy it was.
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((load) => load.toFixed(1)).join(' / ')} (1 / 5 / 15 min)`);
try {
  const off = await run(false, browser, env, appUrl);
  const on = await run(true, browser, env, appUrl);
  const p50 = (values: number[] | undefined) => percentile(values ?? [], 50);
  const p99 = (values: number[] | undefined) => percentile(values ?? [], 99);
  console.log(`ratios: remote tap / plain POST p50 ${(p50(off.tapped) / p50(off.direct)).toFixed(2)}, p99 ${(p99(off.tapped) / p99(off.direct)).toFixed(2)}; pairing on / off p50 ${(p50(on.tapped) / p50(off.tapped)).toFixed(2)}, p99 ${(p99(on.tapped) / p99(off.tapped)).toFixed(2)}`);
  const worst = Math.max(p99(off.tapped), p99(on.tapped));
  console.log(`target p99 < 100 ms: ${worst < 100 ? 'met' : 'NOT met'} (worst p99 ${fmt(worst)})`);
} finally {
  await browser.close();
  await temp.remove();
}

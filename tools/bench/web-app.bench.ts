// Student web app benchmark in Chromium (not a test; it prints figures and ratios measured side by
// side in one run) against a real `npm start` on a fresh DATA_DIR:
//   1. phone action -> page: from just before `POST /api/pip/action` to the focus page's counter
//      changing in the DOM (a MutationObserver stamps the change), p50/p99 over 200 actions;
//   2. load of /focus to interactive (the Start button rendered by the focus screen, measured from
//      the navigation's start): cold (a new browser context: no cache, no service worker) and warm
//      (the same context again, the service worker answering from its precache), alternated.
// Run: node --import tsx tools/bench/web-app.bench.ts [--quick]
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { accountSession, signedInContext, startStudyhall, type SessionJson } from '../e2e/app-driver.ts';
import { launchChromium } from '../e2e/browser.ts';

const quick = process.argv.includes('--quick');
const ACTIONS = quick ? 50 : 200;
const LOADS = quick ? 5 : 15;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
function summary(values: number[]): { p50: number; p90: number; p99: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

/**
 * Records when the Start button of the focus screen first exists, in ms since navigation start.
 * Plain text, not a function: tsx would add helpers to a serialised function that the page lacks.
 */
const MARK_INTERACTIVE = `
  new MutationObserver((records, observer) => {
    if (window.__interactiveAt !== undefined) return observer.disconnect();
    for (const button of document.querySelectorAll('button')) {
      if (button.textContent.trim() === 'Start') {
        window.__interactiveAt = performance.now();
        return observer.disconnect();
      }
    }
  }).observe(document, { childList: true, subtree: true });
`;

async function loadToInteractive(page: Page, url: string): Promise<number> {
  await page.goto(url);
  await page.waitForFunction(
    () => (window as unknown as { __interactiveAt?: number }).__interactiveAt !== undefined,
    undefined,
    { timeout: 15_000 },
  );
  return page.evaluate(() => (window as unknown as { __interactiveAt: number }).__interactiveAt);
}

async function relayLatency(browser: Browser, url: string, session: SessionJson): Promise<number[]> {
  const context = await signedInContext(browser, session);
  const page = await context.newPage();
  await page.goto(`${url}/focus`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  // Let the page take the relay stream and post its first snapshot.
  await page.waitForFunction(async () => (await fetch('/api/pip/state').then((r) => r.json())).updatedAt !== null);
  await page.waitForTimeout(500);
  await page.evaluate(() => {
    const target = document.getElementById('count-correct');
    const changes: number[] = [];
    Object.assign(window, { __changes: changes });
    new MutationObserver(() => changes.push(Date.now())).observe(target as Node, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  const latencies: number[] = [];
  for (let index = 0; index < ACTIONS; index++) {
    const before = await page.evaluate(() => (window as unknown as { __changes: number[] }).__changes.length);
    const sentAt = Date.now();
    const answer = await fetch(`${url}/api/pip/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"action":"correct"}',
    });
    if (answer.status !== 202) throw new Error(`action answered ${answer.status}`);
    const changedAt = await page.waitForFunction(
      (count) => {
        const changes = (window as unknown as { __changes: number[] }).__changes;
        return changes.length > count ? changes[count] : false;
      },
      before,
      { polling: 'raf', timeout: 5000 },
    );
    latencies.push(((await changedAt.jsonValue()) as number) - sentAt);
  }
  await context.close();
  return latencies;
}

async function loads(browser: Browser, url: string, session: SessionJson): Promise<{ cold: number[]; warm: number[] }> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < LOADS; run++) {
    const context: BrowserContext = await signedInContext(browser, session);
    await context.addInitScript({ content: MARK_INTERACTIVE });
    const page = await context.newPage();
    cold.push(await loadToInteractive(page, `${url}/focus`));
    // Wait until the service worker controls the page and has its precache.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
    });
    await page.waitForTimeout(300);
    warm.push(await loadToInteractive(page, `${url}/focus`));
    await context.close();
  }
  return { cold, warm };
}

const temp = await makeTempDir('web-bench');
await ensureViteBuild(VITE_BUILDS.web);
// The relay without codes (PIP_PAIRING=off): the bench times the page, not the pairing.
const studyhall = await startStudyhall(
  { dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') },
  { PIP_PAIRING: 'off' },
);
const browser = await launchChromium();
try {
  const session = await accountSession(studyhall.url, 'bench@example.com', 'bench-password-1');
  // One throwaway load so the server's first-request work (file handles, JIT) is not in the figures.
  const warmup = await signedInContext(browser, session);
  await (await warmup.newPage()).goto(`${studyhall.url}/focus`);
  await warmup.close();

  const relay = summary(await relayLatency(browser, studyhall.url, session));
  console.log(
    `phone action -> counter in the DOM, ${ACTIONS} actions: p50 ${fmt(relay.p50)}, p90 ${fmt(relay.p90)}, p99 ${fmt(relay.p99)}, max ${fmt(relay.max)} (target p99 < 50 ms)`,
  );

  const { cold, warm } = await loads(browser, studyhall.url, session);
  const c = summary(cold);
  const w = summary(warm);
  console.log(
    `/focus to interactive, ${LOADS} loads each: cold p50 ${fmt(c.p50)} p90 ${fmt(c.p90)} (target 500 ms) | warm (service worker) p50 ${fmt(w.p50)} p90 ${fmt(w.p90)} (target 200 ms)`,
  );
  console.log(`  warm/cold ratio at p50: ${(w.p50 / c.p50).toFixed(2)}`);
} finally {
  await browser.close();
  await studyhall.stop();
  await temp.remove();
}

// Benchmark: live group chat in the real app, from a message sent in one browser context to the
// moment it is shown in another, on a fresh `npm start` (gateway + embedded backend) in Debian's
// Chromium. Two students in one group, each with the group page open; each message is typed and
// sent with Enter in one page, and a MutationObserver in the other page notes when its text
// appears. Both ends read the same clock (performance.timeOrigin + performance.now(), which
// every page of one browser shares), so no Node round trip is counted. Side by side in the same
// run: the sender's own copy appearing (the send RPC's round trip), which the delivery to the
// other page can never beat. Not a test: it never fails on a time.
//   node --import tsx tools/bench/community-chat.bench.ts [--messages 100]
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import { signedInContext, startStudyhall } from '../e2e/app-driver.ts';
import { launchChromium } from '../e2e/browser.ts';
import { asStudent, dismissRestoreOffer, student } from '../e2e/community-driver.ts';

const options = z
  .object({ messages: z.coerce.number().int().min(10).max(2000), warmup: z.coerce.number().int().min(0).max(100) })
  .parse(
    parseArgs({ options: { messages: { type: 'string', default: '100' }, warmup: { type: 'string', default: '10' } } })
      .values,
  );

declare global {
  interface Window {
    /** Text -> when the page first showed it (receiver) or when Enter was pressed on it (sender). */
    __chatSeen: Record<string, number>;
    __chatSent: Record<string, number>;
  }
}

/** Notes when each message text is first shown, and when Enter is pressed on a draft. */
async function instrument(page: Page): Promise<void> {
  // tsx keeps function names with a helper the page lacks; give the page an identity one.
  await page.evaluate('window.__name = (fn) => fn');
  await page.evaluate(() => {
    const now = () => performance.timeOrigin + performance.now();
    window.__chatSeen = {};
    window.__chatSent = {};
    const note = () => {
      for (const node of document.querySelectorAll('.chat-log .chat-text')) {
        const text = node.textContent ?? '';
        if (!(text in window.__chatSeen)) window.__chatSeen[text] = now();
      }
    };
    note();
    new MutationObserver(note).observe(document.body, { childList: true, subtree: true, characterData: true });
    document.addEventListener(
      'keydown',
      (event) => {
        const target = event.target as HTMLTextAreaElement | null;
        if (event.key === 'Enter' && !event.shiftKey && target?.matches('textarea'))
          window.__chatSent[target.value] = now();
      },
      { capture: true },
    );
  });
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function summary(values: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1] ?? Number.NaN };
}

const temp = await makeTempDir('chat-bench');
await ensureViteBuild(VITE_BUILDS.web);
const studyhall = await startStudyhall({ dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') });
const browser = await launchChromium();
try {
  const ada = await student(studyhall.url, 'Ada', 'ada');
  const bo = await student(studyhall.url, 'Bo', 'bo_park');
  const [group] = await asStudent<{ id: string }[]>(studyhall.url, ada, '/rest/v1/groups?select=id', {
    body: { name: 'Bench Hall', visibility: 'private', join_policy: 'invite', created_by: ada.id },
    prefer: 'return=representation',
  });
  const groupId = group?.id ?? '';
  const token = await asStudent<string>(studyhall.url, ada, '/rest/v1/rpc/community_create_invite', {
    body: { p_type: 'group', p_target_id: groupId },
  });
  await asStudent(studyhall.url, bo, '/rest/v1/rpc/community_redeem_invite', { body: { p_token: token } });

  const pages: Page[] = [];
  for (const who of [ada, bo]) {
    const context = await signedInContext(browser, who.session, {
      viewport: { width: 1280, height: 800 },
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    await page.goto(`${studyhall.url}/groups/${groupId}`);
    await dismissRestoreOffer(page);
    await page.locator('.chat-status', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
    await instrument(page);
    pages.push(page);
  }
  const [adaPage, boPage] = pages as [Page, Page];

  /** Sends `count` messages from one page to the other, one at a time; the latencies in ms. */
  async function run(
    from: Page,
    to: Page,
    label: string,
    count: number,
  ): Promise<{ delivered: number[]; own: number[] }> {
    const delivered: number[] = [];
    const own: number[] = [];
    const box = from.getByRole('textbox', { name: 'Message' });
    for (let index = 0; index < count; index++) {
      const text = `${label} ${index} ${Math.random().toString(36).slice(2, 8)}`;
      await box.fill(text);
      await box.press('Enter');
      await to.waitForFunction((wanted) => wanted in window.__chatSeen, text, { polling: 'raf', timeout: 10_000 });
      await from.waitForFunction((wanted) => wanted in window.__chatSeen, text, { polling: 'raf', timeout: 10_000 });
      const sent = await from.evaluate((wanted) => window.__chatSent[wanted], text);
      const seenThere = await to.evaluate((wanted) => window.__chatSeen[wanted], text);
      const seenHere = await from.evaluate((wanted) => window.__chatSeen[wanted], text);
      if (sent === undefined || seenThere === undefined || seenHere === undefined)
        throw new Error(`no timing for "${text}"`);
      delivered.push(seenThere - sent);
      own.push(seenHere - sent);
    }
    return { delivered, own };
  }

  await run(adaPage, boPage, 'warm-up', options.warmup);
  const adaToBo = await run(adaPage, boPage, 'ada', options.messages);
  const boToAda = await run(boPage, adaPage, 'bo', options.messages);

  const format = (values: number[]) => {
    const figures = summary(values);
    return `p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms, max ${figures.max.toFixed(1)} ms`;
  };
  console.log(
    `chat, ${options.messages} messages each way after ${options.warmup} to warm up (embedded backend, Debian Chromium), load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  console.log(`  Ada -> shown to Bo:   ${format(adaToBo.delivered)}`);
  console.log(`  Bo -> shown to Ada:   ${format(boToAda.delivered)}`);
  console.log(`  sender's own copy:    ${format([...adaToBo.own, ...boToAda.own])}`);
  const both = [...adaToBo.delivered, ...boToAda.delivered];
  const ownBoth = [...adaToBo.own, ...boToAda.own];
  console.log(
    `  delivery / own copy:  p50 ${(summary(both).p50 / summary(ownBoth).p50).toFixed(2)}x, p95 ${(summary(both).p95 / summary(ownBoth).p95).toFixed(2)}x`,
  );
  console.log(
    `  target: p95 < 150 ms to the other page -> ${summary(both).p95 < 150 ? 'met' : 'missed'} (${summary(both).p95.toFixed(1)} ms over ${both.length})`,
  );
} finally {
  await browser.close();
  await studyhall.stop();
  await temp.remove();
}

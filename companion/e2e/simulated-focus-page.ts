// A focus page simulated in a real browser tab, doing what the web app's /focus page does for the
// relay: it runs a session, posts its timer snapshot to /__pip/state (again after every change and
// whenever its event stream (re)connects, since a restarted server has forgotten it), listens on
// /__pip/events, applies the phone's actions to its counters and shows them in its DOM. With
// PIP_PAIRING=on it pairs first (POST /__pip/pair) and uses its channel. The companion's browser
// tests and benchmark drive the phone against this page; they can switch to the real /focus page
// by giving the same FocusPage interface over it.
import type { BrowserContext, Page } from 'playwright-core';

export interface FocusPageOptions {
  subject: string;
  durationMs: number;
  pairing: boolean;
}

export interface FocusPage {
  page: Page;
  /** The pairing code the page shows (only with PIP_PAIRING=on). */
  code: string | undefined;
  completionAtMs: number;
  /** The counters as the page's DOM shows them. */
  counters(): Promise<{ correct: number; incorrect: number; skipped: number; target: string }>;
  /** Ends the session, as the student pressing stop: the page posts an idle snapshot. */
  endSession(): Promise<void>;
  /** Resolves when the page's DOM shows `value` for `counter`. */
  waitForCounter(counter: 'correct' | 'incorrect' | 'skipped', value: number, timeoutMs: number): Promise<void>;
}

/**
 * tsx (esbuild with keepNames) wraps named functions in __name(...) calls, which then travel into the
 * browser with page.evaluate; this defines that helper there (as a string, so it is not rewritten).
 */
export const NAME_HELPER = 'globalThis.__name = (target) => target;';

interface SimulatedPageSetup {
  subject: string;
  durationMs: number;
  pairing: boolean;
}

/** Runs inside the tab: everything a focus page does for the relay, and a DOM with the counters. */
function runSimulatedFocusPage({ subject, durationMs, pairing }: SimulatedPageSetup): Promise<{ code: string | undefined; completionAtMs: number }> {
  type Counter = 'correct' | 'incorrect' | 'skipped';
  const state = {
    phase: 'focus',
    running: true,
    completionAtMs: Date.now() + durationMs as number | null,
    subject: { id: subject.toLowerCase(), name: subject },
    task: null,
    attempts: { correct: 0, incorrect: 0, skipped: 0 },
    target: null as number | null,
  };
  const history: Counter[] = [];
  document.title = `Focus: ${subject}`;
  document.body.innerHTML = `<main id="focus"><h1 id="focus-subject"></h1><p>Correct <output id="focus-correct">0</output></p><p>Incorrect <output id="focus-incorrect">0</output></p><p>Skipped <output id="focus-skipped">0</output></p><p>Target <output id="focus-target">none</output></p></main>`;
  const render = () => {
    const set = (id: string, text: string) => {
      const element = document.getElementById(id);
      if (element) element.textContent = text;
    };
    set('focus-subject', subject);
    set('focus-correct', String(state.attempts.correct));
    set('focus-incorrect', String(state.attempts.incorrect));
    set('focus-skipped', String(state.attempts.skipped));
    set('focus-target', state.target === null ? 'none' : String(state.target));
  };
  render();

  return (async () => {
    let channel: string | undefined;
    let code: string | undefined;
    if (pairing) {
      const paired = await (await fetch('/__pip/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
      channel = paired.channel;
      code = paired.code;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(channel ? { 'x-pip-channel': channel } : {}) };
    const post = () =>
      fetch('/__pip/state', {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...state, remainingMs: state.completionAtMs === null ? 0 : Math.max(0, state.completionAtMs - Date.now()) }),
      }).catch(() => undefined);
    const apply = (event: { action: string; target?: number }) => {
      if (event.action === 'undo') {
        const last = history.pop();
        if (last) state.attempts[last]--;
      } else if (event.action === 'target') {
        state.target = event.target ?? null;
      } else {
        const counter: Counter = event.action === 'skip' ? 'skipped' : (event.action as Counter);
        state.attempts[counter]++;
        history.push(counter);
      }
      render();
      void post();
    };
    const events = new EventSource(`/__pip/events${channel ? `?channel=${channel}` : ''}`);
    events.addEventListener('pip-action', (event) => apply(JSON.parse((event as MessageEvent<string>).data)));
    // Every (re)connection: the server may have restarted and forgotten this page's snapshot.
    events.addEventListener('hello', () => void post());
    await new Promise((resolve) => events.addEventListener('hello', resolve, { once: true }));
    await post();
    Object.assign(window, {
      __endSession: async () => {
        Object.assign(state, { phase: 'idle', running: false, completionAtMs: null });
        await post();
      },
    });
    return { code, completionAtMs: state.completionAtMs ?? 0 };
  })();
}

export async function openSimulatedFocusPage(context: BrowserContext, appUrl: string, options: FocusPageOptions): Promise<FocusPage> {
  const page = await context.newPage();
  await page.addInitScript(NAME_HELPER);
  // A same-origin document that runs none of the web app's own code.
  await page.goto(`${appUrl}/__app/ping`);
  const { code, completionAtMs } = await page.evaluate(runSimulatedFocusPage, options);
  return {
    page,
    code,
    completionAtMs,
    counters: () =>
      page.evaluate(() => {
        const read = (id: string) => document.getElementById(id)?.textContent ?? '';
        return { correct: Number(read('focus-correct')), incorrect: Number(read('focus-incorrect')), skipped: Number(read('focus-skipped')), target: read('focus-target') };
      }),
    endSession: () => page.evaluate(() => (window as unknown as { __endSession: () => Promise<void> }).__endSession()),
    async waitForCounter(counter, value, timeoutMs) {
      await page.waitForFunction(({ id, expected }) => document.getElementById(id)?.textContent === expected, { id: `focus-${counter}`, expected: String(value) }, { timeout: timeoutMs });
    },
  };
}

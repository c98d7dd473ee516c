// The overlay poll rules with fake timers: 1 s while the timer runs, 3 s otherwise; after failures
// 1, 2, 4 s and then the cap (5 s loopback, 8 s otherwise); a loopback server is asked even when the
// OS reports no network; the offline badge shows from the first failure and clears on a good answer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StateAnswer } from './pip-client.ts';
import {
  backoffDelayMs,
  BACKOFF_CAP_LOOPBACK_MS,
  BACKOFF_CAP_REMOTE_MS,
  POLL_IDLE_MS,
  POLL_RUNNING_MS,
} from './poll-schedule.ts';
import { delayAfter, startStatePoller, type PollerView, type StatePoller } from './state-poller.ts';
import { idleSnapshot, runningSnapshot } from './test-snapshots.ts';

const START = Date.UTC(2026, 10, 23, 9, 0, 0);
const running: StateAnswer = { kind: 'snapshot', snapshot: runningSnapshot(START + 3_600_000) };
const idle: StateAnswer = { kind: 'snapshot', snapshot: idleSnapshot() };
const unreachable: StateAnswer = { kind: 'unreachable', message: 'Cannot reach http://127.0.0.1:3000.' };

let poller: StatePoller | undefined;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});
afterEach(() => {
  poller?.stop();
  poller = undefined;
  vi.useRealTimers();
});

/** Starts a poller whose server gives `answers` in turn (the last one forever); records when it was asked. */
function pollerWith(answers: StateAnswer[], options: { loopback?: boolean; networkAvailable?: () => boolean } = {}) {
  const askedAt: number[] = [];
  const views: PollerView[] = [];
  let index = 0;
  const getState = vi.fn(async () => {
    askedAt.push(Date.now() - START);
    const answer = answers[Math.min(index, answers.length - 1)] as StateAnswer;
    index++;
    return answer;
  });
  poller = startStatePoller({
    getState,
    loopback: options.loopback ?? true,
    networkAvailable: options.networkAvailable ?? (() => true),
    onChange: (view) => views.push(view),
  });
  return { askedAt, views, getState, poller };
}

describe('overlay poll cadence', () => {
  it('asks every 1 s while the timer runs', async () => {
    const { askedAt } = pollerWith([running]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(askedAt).toEqual([0, 1_000, 2_000, 3_000, 4_000]);
    expect(POLL_RUNNING_MS).toBe(1_000);
  });

  it('asks every 3 s while it does not run, and switches when the timer starts', async () => {
    const { askedAt } = pollerWith([idle, idle, running]);
    await vi.advanceTimersByTimeAsync(8_000);
    expect(askedAt).toEqual([0, 3_000, 6_000, 7_000, 8_000]);
    expect(POLL_IDLE_MS).toBe(3_000);
  });
});

describe('backoff on failure', () => {
  it('doubles from 1 s and stops at 5 s for a loopback server', async () => {
    const { askedAt } = pollerWith([unreachable], { loopback: true });
    await vi.advanceTimersByTimeAsync(22_000);
    expect(askedAt).toEqual([0, 1_000, 3_000, 7_000, 12_000, 17_000, 22_000]);
    expect(BACKOFF_CAP_LOOPBACK_MS).toBe(5_000);
  });

  it('doubles from 1 s and stops at 8 s for a server elsewhere', async () => {
    const { askedAt } = pollerWith([unreachable], { loopback: false });
    await vi.advanceTimersByTimeAsync(31_000);
    expect(askedAt).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000, 31_000]);
    expect(BACKOFF_CAP_REMOTE_MS).toBe(8_000);
  });

  it('gives the backoff sequence as a function too', () => {
    expect([1, 2, 3, 4, 5, 50].map((failures) => backoffDelayMs(failures, true))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
    expect([1, 2, 3, 4, 5, 50].map((failures) => backoffDelayMs(failures, false))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });

  it('goes back to the normal cadence after the first good answer', async () => {
    const { askedAt } = pollerWith([unreachable, unreachable, unreachable, running]);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(askedAt).toEqual([0, 1_000, 3_000, 7_000, 8_000, 9_000]);
  });
});

describe('no network reported by the OS', () => {
  it('still asks a loopback server, on the normal cadence', async () => {
    const { askedAt, views } = pollerWith([running], { loopback: true, networkAvailable: () => false });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(askedAt).toEqual([0, 1_000, 2_000]);
    expect(views.at(-1)?.offline).toBe(false);
  });

  it('does not ask a remote server, shows the badge and backs off, then asks once the network is back', async () => {
    let network = false;
    const { askedAt, views, poller } = pollerWith([running], { loopback: false, networkAvailable: () => network });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(askedAt).toEqual([]);
    expect(views.at(-1)).toMatchObject({ offline: true, problem: { kind: 'no_network' } });
    network = true;
    poller.pollNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(askedAt).toEqual([10_000]);
    expect(views.at(-1)?.offline).toBe(false);
  });
});

describe('the offline badge', () => {
  it('shows from the first failure, keeps the last snapshot, and clears on the first good answer', async () => {
    const { views } = pollerWith([running, unreachable, unreachable, running]);
    await vi.advanceTimersByTimeAsync(0);
    expect(views.at(-1)).toMatchObject({ offline: false, problem: undefined });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(views.at(-1)).toMatchObject({ offline: true, problem: { kind: 'unreachable' }, consecutiveFailures: 1 });
    expect(views.at(-1)?.snapshot).toEqual(running.kind === 'snapshot' ? running.snapshot : undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(views.at(-1)?.offline).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(views.at(-1)).toMatchObject({ offline: false, problem: undefined, consecutiveFailures: 0 });
  });

  it('is not shown for a pairing problem: the server answered, it wants a code', async () => {
    const { views, askedAt } = pollerWith([{ kind: 'pairing', reason: 'pairing_required', message: 'code needed' }]);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(views.at(-1)).toMatchObject({ offline: false, problem: { kind: 'pairing', reason: 'pairing_required' } });
    expect(askedAt).toEqual([0, 3_000, 6_000]);
  });

  it('waits as long as a rate limit asks', async () => {
    const { askedAt } = pollerWith([{ kind: 'rate_limited', retryAfterMs: 30_000, message: 'later' }, running]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(askedAt).toEqual([0, 30_000]);
  });
});

describe('pollNow and stop', () => {
  it('asks at once when told, then resumes the cadence from that answer', async () => {
    const { askedAt, poller } = pollerWith([idle]);
    await vi.advanceTimersByTimeAsync(1_000);
    poller.pollNow();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(askedAt).toEqual([0, 1_000, 4_000]);
  });

  it('asks again right after an answer that was in flight when told', async () => {
    let release: (answer: StateAnswer) => void = () => {};
    const askedAt: number[] = [];
    poller = startStatePoller({
      getState: () => {
        askedAt.push(Date.now() - START);
        return askedAt.length === 1 ? new Promise((resolve) => (release = resolve)) : Promise.resolve(idle);
      },
      loopback: true,
      networkAvailable: () => true,
      onChange: () => {},
    });
    await vi.advanceTimersByTimeAsync(100);
    poller.pollNow();
    await vi.advanceTimersByTimeAsync(100);
    expect(askedAt).toEqual([0]);
    release(idle);
    await vi.advanceTimersByTimeAsync(0);
    expect(askedAt).toEqual([0, 200]);
  });

  it('asks nothing after stop', async () => {
    const { askedAt, poller } = pollerWith([running]);
    await vi.advanceTimersByTimeAsync(1_000);
    poller.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(askedAt).toEqual([0, 1_000]);
  });
});

describe('the long poll', () => {
  const running = runningSnapshot(Date.now() + 60_000);
  const view: PollerView = {
    snapshot: running,
    offline: false,
    problem: undefined,
    consecutiveFailures: 0,
    nextPollAt: undefined,
  };

  it('asks again at once after a server held the request, and keeps the cadence with one that did not', () => {
    expect(delayAfter(view, { kind: 'snapshot', snapshot: running, waited: true }, true)).toBe(0);
    expect(delayAfter(view, { kind: 'snapshot', snapshot: running }, true)).toBe(1000);
  });
});

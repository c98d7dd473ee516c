// The overlay poll: one request at a time, each scheduled after the previous answer by the rules
// of poll-schedule.ts. It keeps the last good snapshot and whether the server is reachable: the
// offline badge shows from the first failure and clears on the first good answer.
import type { StateAnswer } from './pip-client.ts';
import { POLL_IDLE_MS, nextPollDelayMs, shouldRequest } from './poll-schedule.ts';
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';
import { isSessionRunning } from './snapshot.ts';

export type PollProblem =
  | { kind: 'unreachable'; message: string }
  | { kind: 'no_network'; message: string }
  | { kind: 'pairing'; reason: 'pairing_required' | 'pairing_code_invalid'; message: string }
  | { kind: 'rate_limited'; message: string }
  | { kind: 'refused'; message: string };

export interface PollerView {
  /** The last snapshot the server answered (kept while offline, so the screen never goes blank). */
  snapshot: TimerSnapshot | undefined;
  /** The offline badge: the server could not be reached on the latest attempt. */
  offline: boolean;
  problem: PollProblem | undefined;
  consecutiveFailures: number;
  /** When the next poll is due (ms epoch), for "retrying in 4 s". */
  nextPollAt: number | undefined;
}

export interface StatePollerOptions {
  /** `after`: the updatedAt of the snapshot shown (0 for none), for a server that waits for a newer one. */
  getState: (after?: number) => Promise<StateAnswer>;
  loopback: boolean;
  networkAvailable: () => boolean;
  onChange: (view: PollerView) => void;
  now?: () => number;
}

export interface StatePoller {
  view(): PollerView;
  /** Polls as soon as possible (after an action, when the network returns, when the page shows). */
  pollNow(): void;
  stop(): void;
}

export function applyAnswer(view: PollerView, answer: StateAnswer | { kind: 'no_network' }): PollerView {
  switch (answer.kind) {
    case 'snapshot':
      return { ...view, snapshot: answer.snapshot, offline: false, problem: undefined, consecutiveFailures: 0 };
    case 'unreachable':
      return {
        ...view,
        offline: true,
        problem: { kind: 'unreachable', message: answer.message },
        consecutiveFailures: view.consecutiveFailures + 1,
      };
    case 'no_network':
      return {
        ...view,
        offline: true,
        problem: { kind: 'no_network', message: 'This phone has no network connection.' },
        consecutiveFailures: view.consecutiveFailures + 1,
      };
    case 'pairing':
      return {
        ...view,
        offline: false,
        problem: { kind: 'pairing', reason: answer.reason, message: answer.message },
        consecutiveFailures: 0,
      };
    case 'rate_limited':
      return {
        ...view,
        offline: false,
        problem: { kind: 'rate_limited', message: answer.message },
        consecutiveFailures: 0,
      };
    case 'refused':
      return { ...view, offline: false, problem: { kind: 'refused', message: answer.message }, consecutiveFailures: 0 };
  }
}

export function delayAfter(view: PollerView, answer: StateAnswer | { kind: 'no_network' }, loopback: boolean): number {
  // The server held the request until something changed (or its wait ran out): ask again at once.
  if (answer.kind === 'snapshot' && answer.waited) return 0;
  if (answer.kind === 'rate_limited') return Math.max(POLL_IDLE_MS, answer.retryAfterMs);
  if (answer.kind === 'pairing' || answer.kind === 'refused') return POLL_IDLE_MS;
  return nextPollDelayMs({
    running: isSessionRunning(view.snapshot),
    consecutiveFailures: view.consecutiveFailures,
    loopback,
  });
}

export function startStatePoller({
  getState,
  loopback,
  networkAvailable,
  onChange,
  now = Date.now,
}: StatePollerOptions): StatePoller {
  let view: PollerView = {
    snapshot: undefined,
    offline: false,
    problem: undefined,
    consecutiveFailures: 0,
    nextPollAt: undefined,
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight = false;
  let pollAgain = false;
  let stopped = false;

  function schedule(delayMs: number): void {
    if (stopped) return;
    if (timer !== undefined) clearTimeout(timer);
    view = { ...view, nextPollAt: now() + delayMs };
    timer = setTimeout(poll, delayMs);
  }

  async function poll(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    inFlight = true;
    let answer: StateAnswer | { kind: 'no_network' };
    if (!shouldRequest({ networkAvailable: networkAvailable(), loopback })) answer = { kind: 'no_network' };
    else
      answer = await getState(view.snapshot ? (view.snapshot.updatedAt ?? 0) : undefined).catch(
        (error: unknown) => ({ kind: 'unreachable', message: String(error) }) as const,
      );
    inFlight = false;
    if (stopped) return;
    view = applyAnswer(view, answer);
    if (pollAgain) {
      pollAgain = false;
      schedule(0);
    } else {
      schedule(delayAfter(view, answer, loopback));
    }
    onChange(view);
  }

  schedule(0);
  return {
    view: () => view,
    pollNow() {
      if (stopped) return;
      if (inFlight) pollAgain = true;
      else schedule(0);
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

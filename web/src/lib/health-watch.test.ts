// The health watch notices a server that went away within 5 s, checks often while it is away or a
// change waits, and says when it is back exactly once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAST_MS, HealthWatch, HIDDEN_MS, PING_TIMEOUT_MS, SLOW_MS } from './health-watch.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function watch(options: { urgent?: boolean; hidden?: boolean } = {}) {
  const state = { up: true, pings: 0, reports: [] as { reachable: boolean; back: boolean; at: number }[] };
  const health = new HealthWatch({
    ping: async () => {
      state.pings++;
      if (state.up) return true;
      // A stopped server: the check waits for its timeout.
      await new Promise((resolve) => setTimeout(resolve, PING_TIMEOUT_MS));
      return false;
    },
    urgent: () => options.urgent ?? false,
    hidden: () => options.hidden ?? false,
    report: (reachable, back) => state.reports.push({ reachable, back, at: Date.now() }),
  });
  return { health, state };
}

describe('HealthWatch', () => {
  it('notices a stopped server within 5 s when nothing waits', async () => {
    const { health, state } = watch();
    health.start();
    const stoppedAt = Date.now();
    state.up = false;
    await vi.advanceTimersByTimeAsync(5_000);
    const first = state.reports.find((report) => !report.reachable);
    expect(first).toBeDefined();
    expect(first!.at - stoppedAt).toBeLessThanOrEqual(5_000);
    expect(SLOW_MS + PING_TIMEOUT_MS).toBeLessThan(5_000);
    health.stop();
  });

  it('checks every FAST_MS while a change waits, and reports the way back once', async () => {
    const { health, state } = watch({ urgent: true });
    health.start();
    await vi.advanceTimersByTimeAsync(FAST_MS * 3);
    expect(state.pings).toBe(3);
    state.up = false;
    await vi.advanceTimersByTimeAsync(FAST_MS + PING_TIMEOUT_MS);
    expect(state.reports.at(-1)).toMatchObject({ reachable: false, back: false });
    state.up = true;
    await vi.advanceTimersByTimeAsync(FAST_MS * 2);
    expect(state.reports.filter((report) => report.back)).toHaveLength(1);
    expect(state.reports.at(-1)).toMatchObject({ reachable: true, back: false });
    health.stop();
  });

  it('checks rarely in a hidden tab, and not at all once stopped', async () => {
    const { health, state } = watch({ hidden: true });
    health.start();
    await vi.advanceTimersByTimeAsync(HIDDEN_MS - 1);
    expect(state.pings).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.pings).toBe(1);
    health.stop();
    await vi.advanceTimersByTimeAsync(HIDDEN_MS * 3);
    expect(state.pings).toBe(1);
  });
});

// The time on screen is recomputed every 40 ms from the snapshot's completionAtMs and the current
// clock, never counted down locally, so it cannot drift from the focus page however long it runs
// or however late a poll answers.
import type { TimerSnapshot } from '#contracts/timer-snapshot.ts';

export const RENDER_TICK_MS = 40;

/** Milliseconds left at `nowMs`: completionAtMs minus now while running, the frozen value otherwise. */
export function remainingMsAt(snapshot: TimerSnapshot, nowMs: number): number {
  if (snapshot.running && snapshot.completionAtMs !== null) return Math.max(0, snapshot.completionAtMs - nowMs);
  return snapshot.remainingMs;
}

/** 1499.2 s -> "25:00": whole seconds rounded up, so the clock shows 0:00 exactly at completion. */
export function formatRemaining(ms: number): string {
  const totalSeconds = Math.ceil(Math.max(0, ms) / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const two = (value: number) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}

/** Calls render(now) at once and then every RENDER_TICK_MS until the returned stop is called. */
export function startRenderTick(render: (nowMs: number) => void, now: () => number = Date.now): () => void {
  render(now());
  const timer = setInterval(() => render(now()), RENDER_TICK_MS);
  return () => clearInterval(timer);
}

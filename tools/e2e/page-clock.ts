// How far behind the server a test's pages run their clock. A focus phase is finished by
// fast-forwarding the page's clock, and the backend refuses a session that ends in the future, so
// the page starts behind the server by at least the phase. Stats then counts the session on the
// study day it started, while "today" is the day of the page's own now: both must be the same
// local day or "Today" rightly shows 0 min (a run just after midnight). So every page of a run uses
// one lag, chosen so that the page's clock stays inside one local day from the start of the phase
// until the run is over; near the end of that day it starts earlier in the day instead.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Milliseconds since local midnight of `ms` in `timeZone` (an IANA name). */
export function localTimeOfDay(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const part = (type: string) => Number(parts.find((item) => item.type === type)?.value ?? 0);
  return ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1000 + (ms % 1000);
}

/** The time zone the browser uses when its context sets no `timezoneId`: this process's. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export interface PageClockOptions {
  /** Minutes the page's clock must at least run behind (the phase that is fast-forwarded, and then some). */
  behindMinutes: number;
  /** Minutes of page time, after the page's start, that must stay on the same local day. */
  spanMinutes: number;
  now?: number;
  timeZone?: string;
}

/**
 * The lag in milliseconds: `behindMinutes`, or more when the page would otherwise cross a local
 * midnight within `spanMinutes` of its start (the day's length is taken as 24 hours: no zone
 * changes its clocks in the last hours before midnight in the zones the tests use).
 */
export function pageClockLag({
  behindMinutes,
  spanMinutes,
  now = Date.now(),
  timeZone = hostTimeZone(),
}: PageClockOptions): number {
  const lag = behindMinutes * MINUTE;
  const startOfPage = localTimeOfDay(now - lag, timeZone);
  return lag + Math.max(0, startOfPage + spanMinutes * MINUTE - DAY);
}

import { describe, expect, it } from 'vitest';
import { localTimeOfDay, pageClockLag } from './page-clock.ts';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

describe('localTimeOfDay', () => {
  it('reads the wall clock of the given zone', () => {
    expect(localTimeOfDay(at('2026-11-26T00:10:30.250Z'), 'Etc/UTC')).toBe((10 * 60 + 30) * 1000 + 250);
    expect(localTimeOfDay(at('2026-11-26T00:10:00Z'), 'Etc/GMT-10')).toBe(10 * 60 * MINUTE + 10 * MINUTE);
    expect(localTimeOfDay(at('2026-11-26T01:00:00Z'), 'Etc/GMT+2')).toBe(23 * 60 * MINUTE);
  });
});

describe('pageClockLag', () => {
  const clock = { behindMinutes: 27, spanMinutes: 60 };

  it('is the plain lag when the page stays inside one day', () => {
    expect(pageClockLag({ ...clock, now: at('2026-11-26T12:00:00Z'), timeZone: 'Etc/UTC' })).toBe(27 * MINUTE);
    expect(pageClockLag({ ...clock, now: at('2026-11-26T01:27:00Z'), timeZone: 'Etc/UTC' })).toBe(27 * MINUTE);
  });

  it('starts the page earlier on the previous day just after midnight, so the phase and the run end before it', () => {
    const now = at('2026-11-26T00:10:00Z');
    const lag = pageClockLag({ ...clock, now, timeZone: 'Etc/UTC' });
    expect(new Date(now - lag).toISOString()).toBe('2026-11-25T23:00:00.000Z');
    expect(lag).toBeGreaterThanOrEqual(27 * MINUTE); // the finished phase still ends in the server's past
  });

  it('starts earlier within the same day late in the evening', () => {
    const now = at('2026-11-26T23:40:00Z');
    expect(new Date(now - pageClockLag({ ...clock, now, timeZone: 'Etc/UTC' })).toISOString()).toBe(
      '2026-11-26T23:00:00.000Z',
    );
  });

  it("counts midnight in the browser's zone, not in UTC", () => {
    // 14:10 UTC is 00:10 in Etc/GMT-10 (UTC+10) and 12:10 in Etc/GMT+2 (UTC-2).
    const now = at('2026-11-26T14:10:00Z');
    expect(pageClockLag({ ...clock, now, timeZone: 'Etc/GMT-10' })).toBe(70 * MINUTE);
    expect(pageClockLag({ ...clock, now, timeZone: 'Etc/GMT+2' })).toBe(27 * MINUTE);
  });
});

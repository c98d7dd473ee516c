// The leaderboard's periods in the caller's own study days (docs/database.md#the-study-day: a day starts
// day_offset_hours after local midnight, local = UTC + timezone_offset_minutes). A week starts on
// Monday, a month on the 1st; "all" has no start.
export type Period = 'day' | 'week' | 'month' | 'all';

export interface DaySettings {
  day_offset_hours: number;
  timezone_offset_minutes: number;
}

/** The caller's current study day as YYYY-MM-DD. */
export function currentStudyDay(nowMs: number, settings: DaySettings): string {
  const shifted = nowMs + settings.timezone_offset_minutes * 60_000 - settings.day_offset_hours * 3_600_000;
  return new Date(shifted).toISOString().slice(0, 10);
}

/** The first study day of the period (inclusive), or null for "all". */
export function periodStart(period: Period, nowMs: number, settings: DaySettings): string | null {
  if (period === 'all') return null;
  const today = currentStudyDay(nowMs, settings);
  const day = new Date(`${today}T00:00:00Z`);
  if (period === 'week') day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  if (period === 'month') day.setUTCDate(1);
  return day.toISOString().slice(0, 10);
}

// A student's study day: local time minus the day offset, so a 01:30 session with an offset of 4
// still counts for the day before (the backend computes the same from user_settings).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function localDateKey(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

export function studyDayOf(ms: number, dayOffsetHours: number): string {
  return localDateKey(new Date(ms - dayOffsetHours * HOUR));
}

/** The date of a day key at local noon (safe across daylight-saving changes). */
export function dateOfKey(key: string): Date {
  const [year, month, day] = key.split('-').map(Number);
  return new Date(year ?? 1970, (month ?? 1) - 1, day ?? 1, 12);
}

export function addDays(key: string, days: number): string {
  return localDateKey(new Date(dateOfKey(key).getTime() + days * DAY));
}

/** Monday of the week holding `key`. */
export function weekStart(key: string): string {
  const weekday = (dateOfKey(key).getDay() + 6) % 7; // Monday 0 ... Sunday 6
  return addDays(key, -weekday);
}

export function monthStart(key: string): string {
  return `${key.slice(0, 7)}-01`;
}

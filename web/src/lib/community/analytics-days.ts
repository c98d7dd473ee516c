// A group's days as the student sees them: the database counts its window up to its own
// current_date, which can be a day ahead of (or behind) the student's study day. The chart shows
// exactly `count` days ending today in the student's study day, with a day the database did not
// return as zero, so its last bar, and its axis, never reach into tomorrow.
import type { AnalyticsDay } from '#contracts/community-answers.ts';
import { addDays } from '../study-day.ts';

export function lastStudyDays(rows: AnalyticsDay[], count: number, today: string): AnalyticsDay[] {
  const byDay = new Map(rows.map((row) => [row.study_day.slice(0, 10), row]));
  return Array.from({ length: count }, (_, index) => {
    const day = addDays(today, index - count + 1);
    const row = byDay.get(day);
    return row ? { ...row, study_day: day } : { study_day: day, total_minutes: 0, total_correct: 0, active_members: 0 };
  });
}

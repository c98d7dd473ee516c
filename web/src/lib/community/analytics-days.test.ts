// The group chart's days end with the student's today whatever day the database thinks it is.
import { describe, expect, it } from 'vitest';
import { lastStudyDays } from './analytics-days.ts';

const row = (study_day: string, total_minutes: number) => ({
  study_day,
  total_minutes,
  total_correct: 0,
  active_members: total_minutes > 0 ? 1 : 0,
});

describe('lastStudyDays', () => {
  it("drops the database's tomorrow and ends with the student's today", () => {
    const fromDatabase = [row('2026-11-19', 5), row('2026-11-24', 30), row('2026-11-25', 45), row('2026-11-26', 0)];
    const days = lastStudyDays(fromDatabase, 7, '2026-11-25');
    expect(days.map((day) => day.study_day)).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
    ]);
    expect(days.map((day) => day.total_minutes)).toEqual([5, 0, 0, 0, 0, 30, 45]);
  });

  it("shows the student's today as empty when the database has not reached it yet", () => {
    const days = lastStudyDays([row('2026-11-24', 30)], 2, '2026-11-25');
    expect(days).toEqual([row('2026-11-24', 30), row('2026-11-25', 0)]);
  });

  it('reads a day given with a time as that day', () => {
    expect(lastStudyDays([row('2026-11-25T00:00:00', 12)], 1, '2026-11-25')[0]?.total_minutes).toBe(12);
  });
});

import { describe, expect, it } from 'vitest';
import type { StudySession } from './model.ts';
import { computeStats } from './stats.ts';

function on(studyDay: string, minutes: number, subjectName: string | null = 'Maths', correct = 0): StudySession {
  return {
    id: `${studyDay}-${minutes}-${subjectName}`,
    startedAt: 0,
    endedAt: 0,
    minutes,
    subjectId: null,
    subjectName,
    taskId: null,
    taskTitle: null,
    correct,
    incorrect: 0,
    skipped: 0,
    studyDay,
    synced: true,
  };
}

describe('stats from local sessions', () => {
  // 2026-11-25 is a Wednesday: the week starts on Monday the 23rd.
  const today = '2026-11-25';
  const sessions = [
    on('2026-10-31', 40),
    on('2026-11-01', 10, 'Physics'),
    on('2026-11-22', 30),
    on('2026-11-23', 25, 'Physics', 3),
    on('2026-11-24', 50),
    on('2026-11-25', 20, null, 5),
    on('2026-11-25', 15, 'Physics'),
  ];
  const stats = computeStats(sessions, today);

  it('sums today, the week from Monday, the month from the 1st, with points = minutes + correct', () => {
    expect(stats.today).toEqual({ minutes: 35, sessions: 2, correct: 5, points: 40 });
    expect(stats.week).toEqual({ minutes: 110, sessions: 4, correct: 8, points: 118 });
    expect(stats.month.minutes).toBe(150);
    expect(stats.allTime.minutes).toBe(190);
  });

  it('counts the streak back from today and keeps the longest run', () => {
    expect(stats.streakDays).toBe(4); // 22, 23, 24, 25
    expect(stats.longestStreakDays).toBe(4);
    expect(
      computeStats(
        sessions.filter((session) => session.studyDay !== today),
        today,
      ).streakDays,
    ).toBe(3); // today not yet studied
    expect(computeStats([on('2026-11-20', 5)], today).streakDays).toBe(0);
  });

  it('ranks subjects by minutes and lists every day of the chart window, empty days as 0', () => {
    expect(stats.perSubject).toEqual([
      { name: 'Maths', minutes: 120 },
      { name: 'Physics', minutes: 50 },
      { name: 'No subject', minutes: 20 },
    ]);
    expect(stats.perDay).toHaveLength(30);
    expect(stats.perDay.at(-1)).toEqual({ day: today, minutes: 35 });
    expect(stats.perDay.find((entry) => entry.day === '2026-11-21')).toEqual({ day: '2026-11-21', minutes: 0 });
  });
});

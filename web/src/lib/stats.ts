// Statistics from the sessions on this device (synced or not): totals for today, the week (from
// Monday), the month (from the 1st), the streak, minutes per subject and per day, and points
// (settled minutes + correct answers, as the leaderboards count them).
import type { StudySession } from './model.ts';
import { addDays, monthStart, weekStart } from './study-day.ts';

export interface Totals {
  minutes: number;
  sessions: number;
  correct: number;
  points: number;
}

export interface Stats {
  today: Totals;
  week: Totals;
  month: Totals;
  allTime: Totals;
  streakDays: number;
  longestStreakDays: number;
  perSubject: { name: string; minutes: number }[];
  perDay: { day: string; minutes: number }[];
}

function totals(sessions: StudySession[]): Totals {
  let minutes = 0;
  let correct = 0;
  for (const session of sessions) {
    minutes += session.minutes;
    correct += session.correct;
  }
  return { minutes, sessions: sessions.length, correct, points: minutes + correct };
}

export function computeStats(all: StudySession[], today: string, days = 30): Stats {
  // A session the backend voided is listed with its reason, never counted.
  const sessions = all.filter((session) => !session.voidedAt);
  const week = weekStart(today);
  const month = monthStart(today);
  const byDay = new Map<string, number>();
  for (const session of sessions) byDay.set(session.studyDay, (byDay.get(session.studyDay) ?? 0) + session.minutes);

  // The streak counts back from today, or from yesterday while today has no session yet.
  let streak = 0;
  let cursor = byDay.get(today) ? today : addDays(today, -1);
  while (byDay.get(cursor)) {
    streak++;
    cursor = addDays(cursor, -1);
  }
  let longest = 0;
  let run = 0;
  let previous: string | null = null;
  for (const day of [...byDay.keys()].sort()) {
    run = previous !== null && addDays(previous, 1) === day ? run + 1 : 1;
    longest = Math.max(longest, run);
    previous = day;
  }

  const subjects = new Map<string, number>();
  for (const session of sessions) {
    const name = session.subjectName ?? 'No subject';
    subjects.set(name, (subjects.get(name) ?? 0) + session.minutes);
  }

  const perDay: Stats['perDay'] = [];
  for (let offset = days - 1; offset >= 0; offset--) {
    const day = addDays(today, -offset);
    perDay.push({ day, minutes: byDay.get(day) ?? 0 });
  }

  return {
    today: totals(sessions.filter((session) => session.studyDay === today)),
    week: totals(sessions.filter((session) => session.studyDay >= week && session.studyDay <= today)),
    month: totals(sessions.filter((session) => session.studyDay >= month && session.studyDay <= today)),
    allTime: totals(sessions),
    streakDays: streak,
    longestStreakDays: longest,
    perSubject: [...subjects.entries()]
      .map(([name, minutes]) => ({ name, minutes }))
      .sort((a, b) => b.minutes - a.minutes),
    perDay,
  };
}

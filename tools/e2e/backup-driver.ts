// An account's backup made from Node, as the app would have backed it up: study sessions on past
// days in a few subjects, so that Stats draws its charts in a browser that restores it.
import type { SessionJson } from './app-driver.ts';

export interface BackupSubject {
  id: string;
  name: string;
  createdAt: number;
}

/** The local calendar day of `date`, as the app names a study day (YYYY-MM-DD). */
export function studyDayOf(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** A finished, synced session of `minutes` from `start`, as the app stores one. */
export function backupSession(
  id: string,
  start: Date,
  minutes: number,
  subject: BackupSubject,
  counts: { correct: number; incorrect: number; skipped: number },
) {
  return {
    id,
    startedAt: start.getTime(),
    endedAt: start.getTime() + minutes * 60_000,
    minutes,
    subjectId: subject.id,
    subjectName: subject.name,
    taskId: null,
    taskTitle: null,
    ...counts,
    studyDay: studyDayOf(start),
    synced: true,
  };
}

/** Stores subjects, sessions and tasks as the account's backup (POST /__auth/import). */
export async function storeBackup(
  baseUrl: string,
  session: SessionJson,
  content: { subjects: BackupSubject[]; sessions: ReturnType<typeof backupSession>[]; tasks?: unknown[] },
): Promise<void> {
  const payload = {
    format: 'studyhall-backup',
    version: 1,
    exported_at: new Date().toISOString(),
    subjects: content.subjects,
    tasks: content.tasks ?? [],
    sessions: content.sessions,
    settings: { focusMinutes: 25, breakMinutes: 5, cycles: 4, dayOffsetHours: 0, dailyGoalMinutes: 120 },
  };
  const stored = await fetch(`${baseUrl}/__auth/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` },
    body: JSON.stringify({ payload }),
  });
  if (!stored.ok) throw new Error(`storing the backup failed: ${stored.status} ${await stored.text()}`);
}

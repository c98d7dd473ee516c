// The backup format: everything a student's device holds, as one JSON object. Its records are
// top-level arrays and objects, so the backend's richness (items of arrays + keys of objects)
// counts them and "the best backup" prefers the one that holds the most.
import type { AppSettings, StudySession, Subject, Task } from './model.ts';

export const BACKUP_FORMAT = 'studyhall-backup';
export const BACKUP_VERSION = 1;

export interface BackupPayload {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  exported_at: string;
  subjects: Subject[];
  tasks: Task[];
  sessions: StudySession[];
  settings: AppSettings;
}

export interface BackupSummaryCounts {
  subjects: number;
  tasks: number;
  sessions: number;
  minutes: number;
  firstDay: string | null;
  lastDay: string | null;
}

export function buildPayload(
  data: { subjects: Subject[]; tasks: Task[]; sessions: StudySession[]; settings: AppSettings },
  now = new Date(),
): BackupPayload {
  return { format: BACKUP_FORMAT, version: BACKUP_VERSION, exported_at: now.toISOString(), ...data };
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What a payload holds, read defensively (it may come from anywhere). */
export function summarizePayload(payload: Record<string, unknown>): BackupSummaryCounts {
  const sessions = list(payload.sessions) as Partial<StudySession>[];
  const days = sessions
    .map((session) => session.studyDay)
    .filter((day): day is string => typeof day === 'string')
    .sort();
  return {
    subjects: list(payload.subjects).length,
    tasks: list(payload.tasks).length,
    sessions: sessions.length,
    minutes: sessions.reduce((sum, session) => sum + (typeof session.minutes === 'number' ? session.minutes : 0), 0),
    firstDay: days[0] ?? null,
    lastDay: days.at(-1) ?? null,
  };
}

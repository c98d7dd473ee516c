// Reading a backup that came from outside (a file, the backend): validated record by record, so a
// damaged or foreign file is refused with the reason before anything local is replaced.
import { z } from 'zod';
import { BACKUP_FORMAT, type BackupPayload } from './backup-payload.ts';
import { ALARM_SOUNDS } from './chime.ts';
import { defaultSettings } from './model.ts';

// The app runs under a policy without 'unsafe-eval': zod must not compile validators with Function.
z.config({ jitless: true });

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date (YYYY-MM-DD)' });
const id = z.string().min(1).max(100);
const count = z.number().int().min(0);
const ms = z.number().int().min(0);

const subject = z.object({ id, name: z.string().min(1).max(200), createdAt: ms });
const task = z.object({
  // Tasks are stored by the backend under this id (a uuid column).
  id: z.uuid({ message: 'must be a task id made by studyhall (a UUID)' }),
  title: z.string().min(1).max(500),
  subjectId: id.nullable(),
  day: day.nullable(),
  done: z.boolean(),
  completedAt: ms.nullable(),
  createdAt: ms,
  updatedAt: ms,
});
const session = z.object({
  id,
  startedAt: ms,
  endedAt: ms,
  minutes: z.number().int().min(1).max(1440),
  subjectId: id.nullable(),
  subjectName: z.string().max(200).nullable(),
  taskId: id.nullable(),
  taskTitle: z.string().max(500).nullable(),
  correct: count,
  incorrect: count,
  skipped: count,
  studyDay: day,
  synced: z.boolean().default(false),
  voidedAt: ms.nullable().optional(),
  voidReason: z.string().max(500).nullable().optional(),
});
const settings = z.object({
  focusMinutes: z.number().int().min(1).max(180),
  breakMinutes: z.number().int().min(1).max(60),
  cycles: z.number().int().min(1).max(12),
  dayOffsetHours: z.number().int().min(0).max(23),
  dailyGoalMinutes: z.number().int().min(0).max(1440).default(defaultSettings.dailyGoalMinutes),
  alarmSound: z.enum(ALARM_SOUNDS).default(defaultSettings.alarmSound),
  alarmMuted: z.boolean().default(defaultSettings.alarmMuted),
});

const payload = z.object({
  format: z.literal(BACKUP_FORMAT, { message: 'is not a studyhall backup' }),
  version: z.literal(1, { message: 'is a backup version this app cannot read' }),
  exported_at: z.string(),
  subjects: z.array(subject).max(10_000),
  tasks: z.array(task).max(100_000),
  sessions: z.array(session).max(100_000),
  settings: settings.default(defaultSettings),
});

/**
 * A refusal: `summary` is the sentence a student reads; `problems` are the validator's findings
 * (field paths and all), for a "details" line and for bug reports.
 */
export type ParsedBackup = { ok: true; payload: BackupPayload } | { ok: false; summary: string; problems: string[] };

export const NOT_A_BACKUP = 'This file is not a studyhall backup. Choose a file made with "Export to a file".';

/** What each part of a backup is called on screen. */
const PARTS: Record<string, string> = {
  exported_at: 'the date it was saved',
  subjects: 'its subjects',
  tasks: 'its tasks',
  sessions: 'its study sessions',
  settings: 'its timer settings',
};

function listed(parts: string[]): string {
  return parts.length < 2 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The refusal in words: not a backup at all, a version this app cannot read, or which parts are damaged. */
function summarize(value: unknown, issues: z.core.$ZodIssue[]): string {
  const record =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (!record || record.format !== BACKUP_FORMAT) return NOT_A_BACKUP;
  if (record.version !== 1) return 'This backup was made by another version of studyhall, which this app cannot read.';
  const parts = [...new Set(issues.map((issue) => PARTS[String(issue.path[0])] ?? 'a part of it'))];
  return `This studyhall backup is damaged and cannot be imported: something is wrong with ${listed(parts)}.`;
}

export function parseBackup(value: unknown): ParsedBackup {
  const result = payload.safeParse(value);
  if (result.success) return { ok: true, payload: result.data as BackupPayload };
  return {
    ok: false,
    summary: summarize(value, result.error.issues),
    problems: result.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.length ? issue.path.join('.') : 'the file'} ${issue.message}`),
  };
}

export function parseBackupText(text: string): ParsedBackup {
  try {
    return parseBackup(JSON.parse(text));
  } catch {
    return { ok: false, summary: NOT_A_BACKUP, problems: ['the file is not JSON'] };
  }
}

// The history a student's account holds on the backend, pulled into this device at sign-in and at
// each start while signed in: her study sessions (voided ones included, shown but not counted) and
// her tasks, merged with the local records by lib/history-merge.ts. Subjects are not on the backend
// (only in backups); the ones pulled records name are added.
import { ApiError, requestJson } from '../lib/api.ts';
import { clientConfig } from '../lib/client-config.ts';
import {
  mergeSessions,
  mergeTasks,
  missingSubjects,
  SESSION_COLUMNS,
  TASK_COLUMNS,
  type RemoteSession,
  type RemoteTask,
} from '../lib/history-merge.ts';
import { studyDayOf } from '../lib/study-day.ts';
import { accessToken } from './auth.ts';
import { mergeRecords, subjectName } from './data.ts';
import { serverReachable, sessions, settings, subjects, tasks } from './signals.ts';
import { discardEntry, enqueue, refreshSyncCounts } from './sync.ts';

const PAGE = 1000;

async function readAll<T>(table: string, query: string): Promise<T[]> {
  const apikey = (await clientConfig()).anon_key;
  const rows: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const path = `/__backend/rest/v1/${table}?${query}&limit=${PAGE}&offset=${offset}`;
    let page: T[];
    try {
      page = await requestJson<T[]>(path, { token: await accessToken(), headers: { apikey } });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      page = await requestJson<T[]>(path, { token: await accessToken(true), headers: { apikey } });
    }
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

export interface PulledHistory {
  sessions: number;
  tasks: number;
}

/** Pulls and merges; how many records changed on this device. Throws when the backend cannot be read. */
export async function pullHistory(): Promise<PulledHistory> {
  const [remoteSessions, remoteTasks] = await Promise.all([
    readAll<RemoteSession>('study_sessions', `select=${SESSION_COLUMNS}&order=started_at.asc,id.asc`),
    readAll<RemoteTask>('user_tasks', `select=${TASK_COLUMNS}&order=created_at.asc,id.asc`),
  ]);
  serverReachable.value = true;
  const waiting = await refreshSyncCounts();
  const pendingTaskIds = new Set(
    waiting.flatMap((entry) =>
      entry.op.kind === 'task-upsert' ? [entry.op.task.id] : entry.op.kind === 'task-delete' ? [entry.op.taskId] : [],
    ),
  );
  const dayOffset = settings.value.dayOffsetHours;
  const pulledSessions = mergeSessions(sessions.value, remoteSessions, (at) => studyDayOf(at, dayOffset));
  const taskMerge = mergeTasks(tasks.value, remoteTasks, pendingTaskIds);
  const named = [
    ...remoteTasks.map((row) => ({ subjectId: row.subject_id, subjectName: row.subject_name })),
    ...pulledSessions,
  ];
  for (const id of taskMerge.dropPending) await discardEntry(`task:${id}`);
  await mergeRecords({
    subjects: missingSubjects(subjects.value, named, Date.now()),
    tasks: taskMerge.put,
    sessions: pulledSessions,
  });
  for (const task of taskMerge.send)
    await enqueue({ kind: 'task-upsert', task, subjectName: subjectName(task.subjectId) });
  return { sessions: pulledSessions.length, tasks: taskMerge.put.length };
}

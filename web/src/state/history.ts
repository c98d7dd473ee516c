// The history a student's account holds on the backend, pulled into this device at sign-in and at
// each start while signed in: her study sessions (voided ones included, shown but not counted) and
// her tasks, merged with the local records by lib/history-merge.ts. Subjects are not on the backend
// (only in backups); the ones pulled records name are added.
import { clientConfig } from '../lib/client-config.ts';
import { mergeSessions, mergeTasks, missingSubjects } from '../lib/history-merge.ts';
import { HistoryReader } from '../lib/history-reader.ts';
import { studyDayOf } from '../lib/study-day.ts';
import { accessToken } from './auth.ts';
import { mergeRecords, subjectName } from './data.ts';
import { account, serverReachable, sessions, settings, subjects, tasks } from './signals.ts';
import { discardEntry, enqueue, refreshSyncCounts } from './sync.ts';

const reader = new HistoryReader({
  baseUrl: '/__backend',
  anonKey: async () => (await clientConfig()).anon_key,
  token: (refresh) => accessToken(refresh),
  userId: () => account.value?.userId ?? null,
});

export interface PulledHistory {
  sessions: number;
  tasks: number;
}

/** Pulls and merges; how many records changed on this device. Throws when the backend cannot be read. */
export async function pullHistory(): Promise<PulledHistory> {
  const { sessions: remoteSessions, tasks: remoteTasks } = await reader.read();
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

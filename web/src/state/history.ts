// The history a student's account holds on the backend, pulled into this device at sign-in and at
// each start while signed in: her study sessions (voided ones included, shown but not counted),
// her tasks, her subjects and her timer settings, merged with the local records by
// lib/history-merge.ts. A subject that pulled records name, but that neither the device nor the
// backend's subjects know, is added by name.
import { clientConfig } from '../lib/client-config.ts';
import { readKv, writeKv } from '../lib/db.ts';
import { mergeSessions, mergeSubjects, mergeTasks, mergeTimer, missingSubjects } from '../lib/history-merge.ts';
import { HistoryReader } from '../lib/history-reader.ts';
import { timerPreferencesOf } from '../lib/model.ts';
import { studyDayOf } from '../lib/study-day.ts';
import { accessToken } from './auth.ts';
import { adoptServerTimer, mergeRecords, subjectName } from './data.ts';
import { account, db, serverReachable, sessions, settings, subjects, tasks } from './signals.ts';
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
  subjects: number;
}

/** Pulls and merges; how many records changed on this device. Throws when the backend cannot be read. */
export async function pullHistory(): Promise<PulledHistory> {
  const { sessions: remoteSessions, tasks: remoteTasks, subjects: remoteSubjects, timer } = await reader.read();
  serverReachable.value = true;
  const database = db.value;
  if (!database) throw new Error('local data is not open');
  const waiting = await refreshSyncCounts();
  const pendingIds = (prefix: 'task' | 'subject') =>
    new Set(
      waiting.filter((entry) => entry.key.startsWith(`${prefix}:`)).map((entry) => entry.key.slice(prefix.length + 1)),
    );

  // The timer settings first: a session's study day does not depend on them, but the screens do.
  const timerMerge = mergeTimer(
    timerPreferencesOf(settings.value),
    await readKv(database, 'timerUpdatedAt'),
    timer,
    waiting.some((entry) => entry.key === 'timer-settings'),
  );
  if (timerMerge.kind === 'adopt')
    await adoptServerTimer({ ...settings.value, ...timerMerge.timer }, timerMerge.updatedAt);
  if (timerMerge.kind === 'send') await enqueue({ kind: 'timer-settings', timer: timerPreferencesOf(settings.value) });

  const dayOffset = settings.value.dayOffsetHours;
  const pulledSessions = mergeSessions(sessions.value, remoteSessions, (at) => studyDayOf(at, dayOffset));
  const taskMerge = mergeTasks(tasks.value, remoteTasks, pendingIds('task'));
  const firstSubjectPull = remoteSubjects !== null && !(await readKv(database, 'subjectsUploaded'));
  const subjectMerge = mergeSubjects(subjects.value, remoteSubjects ?? [], pendingIds('subject'), firstSubjectPull);
  const named = [
    ...remoteTasks.map((row) => ({ subjectId: row.subject_id, subjectName: row.subject_name })),
    ...pulledSessions,
  ];
  for (const id of taskMerge.dropPending) await discardEntry(`task:${id}`);
  const addedSubjects = [
    ...subjectMerge.put,
    ...missingSubjects([...subjects.value, ...subjectMerge.put], named, Date.now()),
  ];
  await mergeRecords({ subjects: addedSubjects, tasks: taskMerge.put, sessions: pulledSessions });
  for (const task of taskMerge.send)
    await enqueue({ kind: 'task-upsert', task, subjectName: subjectName(task.subjectId) });
  for (const subject of subjectMerge.send) await enqueue({ kind: 'subject-upsert', subject });
  if (firstSubjectPull) await writeKv(database, 'subjectsUploaded', true);
  return { sessions: pulledSessions.length, tasks: taskMerge.put.length, subjects: addedSubjects.length };
}

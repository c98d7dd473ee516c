// Loading a student's local data and every change to it. Each change is written to IndexedDB,
// shown at once, and (when the backend must know) queued in the outbox. A change that cannot be
// kept is never silent: it is named in saveFailure and thrown to the screen that asked for it.
import { readKv, writeKv, type Db } from '../lib/db.ts';
import {
  defaultSettings,
  isUuid,
  newId,
  timerPreferencesOf,
  type AppSettings,
  type StudySession,
  type Subject,
  type Task,
} from '../lib/model.ts';
import { studyDayOf } from '../lib/study-day.ts';
import { idleTimer, withSettings } from '../lib/timer.ts';
import {
  db,
  dataStatus,
  dataVersion,
  profile,
  saveFailure,
  sessions,
  settings,
  subjects,
  tasks,
  timer,
} from './signals.ts';
import { snapshotSoon } from './backups.ts';
import { enqueue } from './sync.ts';
import { channel } from './tabs.ts';

function requireDb(): Db {
  if (!db.value) throw new Error('local data is not open');
  return db.value;
}

/**
 * Runs one change a student asked for. A change this device could not keep (IndexedDB refused
 * it, or it threw before the write) stays named in saveFailure, so the sync line says so instead
 * of "Everything is synced", until a later change is kept; and it is thrown on, so the screen
 * where she acted says it too. Screens catch it, so it is reported to the server here.
 */
async function keep<T>(what: string, change: () => Promise<T>): Promise<T> {
  try {
    const result = await change();
    saveFailure.value = null;
    return result;
  } catch (error) {
    saveFailure.value = { what, reason: error instanceof Error ? error.message : String(error) };
    globalThis.reportError?.(error);
    throw error;
  }
}

export async function loadAll(database: Db): Promise<void> {
  const [subjectRows, taskRows, sessionRows, storedSettings, storedProfile, storedTimer] = await Promise.all([
    database.getAll('subjects'),
    database.getAll('tasks'),
    database.getAllFromIndex('sessions', 'byStart'),
    readKv(database, 'settings'),
    readKv(database, 'profile'),
    readKv(database, 'timer'),
  ]);
  subjects.value = subjectRows.sort((a, b) => a.createdAt - b.createdAt);
  tasks.value = taskRows.sort((a, b) => a.createdAt - b.createdAt);
  sessions.value = sessionRows;
  settings.value = { ...defaultSettings, ...storedSettings };
  profile.value = storedProfile ?? null;
  timer.value =
    storedTimer ??
    idleTimer({
      focusMinutes: settings.value.focusMinutes,
      breakMinutes: settings.value.breakMinutes,
      cycles: settings.value.cycles,
    });
  db.value = database;
  dataStatus.value = 'ready';
}

/** Another tab changed the data: read it again. */
export async function reloadFromDb(): Promise<void> {
  if (db.value) await loadAll(db.value);
}

function changed(): void {
  dataVersion.value++;
  channel()?.postMessage({ type: 'data' });
}

export function hasLocalData(): boolean {
  return subjects.value.length > 0 || tasks.value.length > 0 || sessions.value.length > 0;
}

// Subjects: local, and upserted to user_subjects through the outbox (sessions and tasks also carry
// the subject's id and name).

export function addSubject(name: string): Promise<Subject> {
  return keep(`the subject “${name.trim()}”`, async () => {
    const subject: Subject = { id: newId(), name: name.trim(), createdAt: Date.now() };
    await requireDb().put('subjects', subject);
    subjects.value = [...subjects.value, subject];
    changed();
    await enqueue({ kind: 'subject-upsert', subject });
    return subject;
  });
}

export function deleteSubject(id: string): Promise<void> {
  return keep('removing a subject', async () => {
    await requireDb().delete('subjects', id);
    subjects.value = subjects.value.filter((subject) => subject.id !== id);
    changed();
    await enqueue({ kind: 'subject-delete', subjectId: id });
  });
}

export function subjectName(id: string | null): string | null {
  return id ? (subjects.value.find((subject) => subject.id === id)?.name ?? null) : null;
}

// Tasks: local, and upserted to user_tasks through the outbox.

async function saveTask(task: Task): Promise<void> {
  await requireDb().put('tasks', task);
  const others = tasks.value.filter((item) => item.id !== task.id);
  tasks.value = [...others, task].sort((a, b) => a.createdAt - b.createdAt);
  changed();
  await enqueue({ kind: 'task-upsert', task, subjectName: subjectName(task.subjectId) });
}

export function addTask(title: string, subjectId: string | null, day: string | null): Promise<Task> {
  return keep(`the task “${title.trim()}”`, async () => {
    const now = Date.now();
    const task: Task = {
      id: newId(),
      title: title.trim(),
      subjectId,
      day,
      done: false,
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await saveTask(task);
    return task;
  });
}

export function setTaskDone(task: Task, done: boolean): Promise<void> {
  return keep(`${done ? 'ticking off' : 'reopening'} the task “${task.title}”`, async () => {
    const now = Date.now();
    await saveTask({ ...task, done, completedAt: done ? now : null, updatedAt: now });
  });
}

export function deleteTask(id: string): Promise<void> {
  return keep('removing a task', async () => {
    await requireDb().delete('tasks', id);
    tasks.value = tasks.value.filter((task) => task.id !== id);
    changed();
    await enqueue({ kind: 'task-delete', taskId: id });
  });
}

// Sessions: settled by Finish, recorded through the outbox with record_study_session at once (the
// outbox entry is written first and the send starts before the session is stored, so a tab closed
// right after Finish still sends it); the outbox marks each one synced once the backend has it
// (sync.ts).

export function recordSession(fields: Omit<StudySession, 'id' | 'studyDay' | 'synced'>): Promise<StudySession> {
  return keep('the study session', async () => {
    const session: StudySession = {
      ...fields,
      id: newId(),
      studyDay: studyDayOf(fields.startedAt, settings.value.dayOffsetHours),
      synced: false,
    };
    const database = requireDb();
    await enqueue({ kind: 'session', session }, async () => {
      await database.put('sessions', session);
      sessions.value = [...sessions.value, session];
      changed();
      snapshotSoon();
    });
    return session;
  });
}

// Settings.

export function saveSettings(next: AppSettings): Promise<void> {
  return keep('the settings', () => writeSettings(next));
}

async function writeSettings(next: AppSettings, from: 'student' | 'server' = 'student'): Promise<void> {
  const database = requireDb();
  const dayChanged = next.dayOffsetHours !== settings.value.dayOffsetHours;
  const preferences = timerPreferencesOf(next);
  const timerChanged = JSON.stringify(preferences) !== JSON.stringify(timerPreferencesOf(settings.value));
  await writeKv(database, 'settings', next);
  settings.value = next;
  // The chosen subject and task ride along with the timer state; keep them.
  timer.value = {
    ...timer.value,
    ...withSettings(timer.value, {
      focusMinutes: next.focusMinutes,
      breakMinutes: next.breakMinutes,
      cycles: next.cycles,
    }),
  };
  await writeKv(database, 'timer', timer.value);
  changed();
  if (from === 'server') return;
  if (timerChanged) {
    await writeKv(database, 'timerUpdatedAt', Date.now());
    await enqueue({ kind: 'timer-settings', timer: preferences });
  }
  if (dayChanged)
    await enqueue({
      kind: 'settings',
      dayOffsetHours: next.dayOffsetHours,
      timezoneOffsetMinutes: -new Date().getTimezoneOffset(),
    });
}

/** Takes the timer settings the server holds (newer than this device's), stamped with the server's time. */
export async function adoptServerTimer(next: AppSettings, updatedAt: number): Promise<void> {
  await writeSettings(next, 'server');
  await writeKv(requireDb(), 'timerUpdatedAt', updatedAt);
}

/** Writes records merged from the backend (history-merge.ts) next to the local ones. */
export async function mergeRecords(records: {
  subjects: Subject[];
  tasks: Task[];
  sessions: StudySession[];
}): Promise<void> {
  if (records.subjects.length + records.tasks.length + records.sessions.length === 0) return;
  const database = requireDb();
  const tx = database.transaction(['subjects', 'tasks', 'sessions'], 'readwrite');
  for (const subject of records.subjects) await tx.objectStore('subjects').put(subject);
  for (const task of records.tasks) await tx.objectStore('tasks').put(task);
  for (const session of records.sessions) await tx.objectStore('sessions').put(session);
  await tx.done;
  await loadAll(database);
  changed();
}

/** Adds records a backup holds and the device lacks (the restore offer), and queues them for the backend. */
export async function addRecords(records: {
  subjects: Subject[];
  tasks: Task[];
  sessions: StudySession[];
}): Promise<void> {
  const fresh = records.sessions.map((session) => ({ ...session, synced: false }));
  await mergeRecords({ subjects: records.subjects, tasks: records.tasks, sessions: fresh });
  for (const subject of records.subjects) if (isUuid(subject.id)) await enqueue({ kind: 'subject-upsert', subject });
  for (const task of records.tasks)
    await enqueue({ kind: 'task-upsert', task, subjectName: subjectName(task.subjectId) });
  for (const session of fresh) await enqueue({ kind: 'session', session });
}

/** Replaces every local record with a backup's (after the student confirmed). */
export async function replaceAllData(data: {
  subjects: Subject[];
  tasks: Task[];
  sessions: StudySession[];
  settings: AppSettings;
}): Promise<void> {
  const database = requireDb();
  const tx = database.transaction(['subjects', 'tasks', 'sessions', 'kv'], 'readwrite');
  await Promise.all([
    tx.objectStore('subjects').clear(),
    tx.objectStore('tasks').clear(),
    tx.objectStore('sessions').clear(),
  ]);
  for (const subject of data.subjects) await tx.objectStore('subjects').put(subject);
  for (const task of data.tasks) await tx.objectStore('tasks').put(task);
  for (const session of data.sessions) await tx.objectStore('sessions').put(session);
  await tx.objectStore('kv').put(data.settings, 'settings');
  await tx.done;
  await loadAll(database);
  changed();
  // What the backend may lack: subjects and tasks (upserts are idempotent) and sessions not yet recorded.
  for (const subject of data.subjects) if (isUuid(subject.id)) await enqueue({ kind: 'subject-upsert', subject });
  for (const task of data.tasks) await enqueue({ kind: 'task-upsert', task, subjectName: subjectName(task.subjectId) });
  for (const session of data.sessions) if (!session.synced) await enqueue({ kind: 'session', session });
}

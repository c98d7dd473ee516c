// Merging what the backend holds for a student (study_sessions, user_tasks, user_subjects, the
// timer settings of user_settings) into the device's records, as pure functions: nothing is
// duplicated (a session is matched by its client id, an older one without a client id by its
// start instant; a task and a subject by their id), nothing local is lost (a record the backend
// lacks stays, and the outbox still sends it), and of two versions of a task, or of the timer
// settings, the newer edit wins (the server's stamp of when it arrived). A subject a pulled task or
// session names is added when neither the device nor the backend's subjects know it, so it shows
// by name.
import { isUuid, sessionClientId, type StudySession, type Subject, type Task, type TimerPreferences } from './model.ts';

/** A study_sessions row as the student reads it. */
export interface RemoteSession {
  id: string;
  client_id: string | null;
  started_at: string;
  ended_at: string;
  minutes: number;
  subject_id: string | null;
  subject_name: string | null;
  task_id: string | null;
  task_title: string | null;
  correct: number;
  incorrect: number;
  skipped: number;
  voided_at: string | null;
  void_reason: string | null;
}

/** A user_tasks row as the student reads it. */
export interface RemoteTask {
  id: string;
  title: string;
  subject_id: string | null;
  subject_name: string | null;
  task_day: string | null;
  done: boolean;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A user_subjects row as the student reads it. */
export interface RemoteSubject {
  id: string;
  name: string;
  created_at: string;
}

/** The timer columns of her user_settings row (null: never chosen, the app's default). */
export interface RemoteTimer {
  focus_minutes: number | null;
  break_minutes: number | null;
  cycles: number | null;
  daily_goal_minutes: number | null;
  timer_updated_at: string | null;
}

export const SUBJECT_COLUMNS = 'id,name,created_at';
export const TIMER_COLUMNS = 'focus_minutes,break_minutes,cycles,daily_goal_minutes,timer_updated_at';

export const SESSION_COLUMNS =
  'id,client_id,started_at,ended_at,minutes,subject_id,subject_name,task_id,task_title,correct,incorrect,skipped,voided_at,void_reason';
export const TASK_COLUMNS = 'id,title,subject_id,subject_name,task_day,done,completed_at,created_at,updated_at';

const time = (value: string | null): number | null => (value === null ? null : Date.parse(value));

/**
 * The sessions to write on the device: the backend's sessions it does not have yet, and its own
 * sessions the backend has recorded (now synced) or voided since. Local sessions the backend
 * lacks are left as they are.
 */
export function mergeSessions(
  local: readonly StudySession[],
  remote: readonly RemoteSession[],
  studyDayOf: (startedAt: number) => string,
): StudySession[] {
  const byClientId = new Map<string, StudySession>();
  const byStart = new Map<number, StudySession>();
  for (const session of local) {
    const clientId = sessionClientId(session);
    if (clientId !== null) byClientId.set(clientId, session);
    byStart.set(session.startedAt, session);
  }
  const put: StudySession[] = [];
  const seen = new Set<string>();
  for (const row of remote) {
    const startedAt = Date.parse(row.started_at);
    const clientId = row.client_id?.toLowerCase() ?? null;
    const match = clientId !== null ? byClientId.get(clientId) : byStart.get(startedAt);
    const voidedAt = time(row.voided_at);
    const voidReason = voidedAt === null ? null : row.void_reason;
    if (match) {
      if (seen.has(match.id)) continue;
      seen.add(match.id);
      if (match.synced && (match.voidedAt ?? null) === voidedAt && (match.voidReason ?? null) === voidReason) continue;
      put.push({ ...match, synced: true, voidedAt, voidReason });
      continue;
    }
    const id = clientId ?? `server-${row.id}`;
    if (seen.has(id)) continue;
    seen.add(id);
    put.push({
      id,
      startedAt,
      endedAt: Date.parse(row.ended_at),
      minutes: row.minutes,
      subjectId: row.subject_id,
      subjectName: row.subject_name,
      taskId: row.task_id,
      taskTitle: row.task_title,
      correct: row.correct,
      incorrect: row.incorrect,
      skipped: row.skipped,
      studyDay: studyDayOf(startedAt),
      synced: true,
      voidedAt,
      voidReason,
    });
  }
  return put;
}

export interface TaskMerge {
  /** Tasks to write on the device (new from the backend, or a newer version of a local one). */
  put: Task[];
  /** Local tasks newer than the backend's version and not waiting in the outbox: to send. */
  send: Task[];
  /** Waiting local edits the backend already holds a newer version of: to drop from the outbox. */
  dropPending: string[];
}

function fromRemote(row: RemoteTask): Task {
  return {
    id: row.id,
    title: row.title,
    subjectId: row.subject_id,
    day: row.task_day,
    done: row.done,
    completedAt: time(row.completed_at),
    createdAt: Date.parse(row.created_at),
    updatedAt: Date.parse(row.updated_at),
  };
}

function sameContent(a: Task, b: Task): boolean {
  return (
    a.title === b.title &&
    a.subjectId === b.subjectId &&
    a.day === b.day &&
    a.done === b.done &&
    a.completedAt === b.completedAt
  );
}

/**
 * The newer edit wins. The backend stamps updated_at when a write arrives, which is never before
 * the edit it carries, so a version the device sent comes back as "newer" with the same content
 * and is left alone.
 */
export function mergeTasks(
  local: readonly Task[],
  remote: readonly RemoteTask[],
  pendingIds: ReadonlySet<string>,
): TaskMerge {
  const byId = new Map(local.map((task) => [task.id, task]));
  const merge: TaskMerge = { put: [], send: [], dropPending: [] };
  for (const row of remote) {
    const theirs = fromRemote(row);
    const ours = byId.get(row.id);
    if (!ours) {
      // Not on the device: new from another device, or deleted here with the delete still waiting.
      if (!pendingIds.has(row.id)) merge.put.push(theirs);
      continue;
    }
    if (ours.updatedAt > theirs.updatedAt) {
      if (!pendingIds.has(ours.id) && !sameContent(ours, theirs)) merge.send.push(ours);
      continue;
    }
    if (pendingIds.has(ours.id)) merge.dropPending.push(ours.id);
    if (!sameContent(ours, theirs)) merge.put.push({ ...theirs, createdAt: ours.createdAt });
  }
  return merge;
}

/** Subjects the pulled records name that the device does not know yet. */
export function missingSubjects(
  known: readonly Subject[],
  named: readonly { subjectId: string | null; subjectName: string | null }[],
  now: number,
): Subject[] {
  const ids = new Set(known.map((subject) => subject.id));
  const added: Subject[] = [];
  for (const { subjectId, subjectName } of named) {
    if (subjectId === null || !subjectName || ids.has(subjectId)) continue;
    ids.add(subjectId);
    added.push({ id: subjectId, name: subjectName.slice(0, 200), createdAt: now });
  }
  return added;
}

export interface SubjectMerge {
  /** Subjects to write on the device: the backend's the device does not have. */
  put: Subject[];
  /** Local subjects the backend lacks, to send (only on a device's first pull since subjects sync). */
  send: Subject[];
}

/**
 * The backend's subjects the device lacks are added, unless the device waits to send something
 * about them (a deletion made here). A local subject the backend lacks stays on the device; it is
 * sent only by `uploadLocal` (the device's first pull since subjects reach the server: later, one
 * the backend lacks was deleted on another device, and sending it would bring it back).
 */
export function mergeSubjects(
  local: readonly Subject[],
  remote: readonly RemoteSubject[],
  pendingIds: ReadonlySet<string>,
  uploadLocal: boolean,
): SubjectMerge {
  const localIds = new Set(local.map((subject) => subject.id));
  const remoteIds = new Set(remote.map((row) => row.id.toLowerCase()));
  const put = remote
    .filter((row) => !localIds.has(row.id) && !localIds.has(row.id.toLowerCase()) && !pendingIds.has(row.id))
    .map((row) => ({ id: row.id, name: row.name.slice(0, 200), createdAt: Date.parse(row.created_at) }));
  const send = uploadLocal
    ? local.filter(
        (subject) => isUuid(subject.id) && !remoteIds.has(subject.id.toLowerCase()) && !pendingIds.has(subject.id),
      )
    : [];
  return { put, send };
}

export type TimerMerge =
  /** The backend's are newer (or this device never chose): take them, with the server's stamp. */
  | { kind: 'adopt'; timer: TimerPreferences; updatedAt: number }
  /** This device's are newer and not waiting to be sent: send them. */
  | { kind: 'send' }
  | { kind: 'keep' };

/**
 * Whose timer settings win: a change waiting in the outbox is sent as it is; otherwise the newer
 * of this device's last change and the server's stamp. Values the backend never stored (null) fall
 * back to this device's.
 */
export function mergeTimer(
  local: TimerPreferences,
  localUpdatedAt: number | undefined,
  remote: RemoteTimer | null,
  pending: boolean,
): TimerMerge {
  if (pending || !remote) return { kind: 'keep' };
  const remoteAt = remote.timer_updated_at === null ? null : Date.parse(remote.timer_updated_at);
  if (remoteAt === null) return localUpdatedAt === undefined ? { kind: 'keep' } : { kind: 'send' };
  if (localUpdatedAt !== undefined && localUpdatedAt > remoteAt) return { kind: 'send' };
  const timer: TimerPreferences = {
    focusMinutes: remote.focus_minutes ?? local.focusMinutes,
    breakMinutes: remote.break_minutes ?? local.breakMinutes,
    cycles: remote.cycles ?? local.cycles,
    dailyGoalMinutes: remote.daily_goal_minutes ?? local.dailyGoalMinutes,
  };
  const same = JSON.stringify(timer) === JSON.stringify(local) && localUpdatedAt === remoteAt;
  return same ? { kind: 'keep' } : { kind: 'adopt', timer, updatedAt: remoteAt };
}

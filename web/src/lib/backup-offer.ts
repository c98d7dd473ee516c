// What a stored backup would add to this device: its subjects, tasks and sessions that the device
// does not hold (a session matched as the history pull matches it, by its client id or its start
// instant; a task by its id; a subject by its id or its name). The restore offer shows it and adds
// exactly these records, replacing nothing. Read defensively: a stored payload may come from
// anywhere, and the offer is computed before the backup is validated.
import { sessionClientId, type StudySession, type Subject, type Task } from './model.ts';

export interface DeviceRecords {
  subjects: readonly Subject[];
  tasks: readonly Task[];
  sessions: readonly StudySession[];
}

export interface BackupAdditions {
  subjects: Subject[];
  tasks: Task[];
  sessions: StudySession[];
}

const list = <T>(value: unknown): Partial<T>[] =>
  Array.isArray(value) ? value.filter((item): item is Partial<T> => typeof item === 'object' && item !== null) : [];

export function backupAdditions(payload: Record<string, unknown>, device: DeviceRecords): BackupAdditions {
  const subjectIds = new Set(device.subjects.map((subject) => subject.id));
  const subjectNames = new Set(device.subjects.map((subject) => subject.name.trim().toLowerCase()));
  const taskIds = new Set(device.tasks.map((task) => task.id));
  const clientIds = new Set(device.sessions.flatMap((session) => sessionClientId(session) ?? []));
  const starts = new Set(device.sessions.map((session) => session.startedAt));
  return {
    subjects: list<Subject>(payload.subjects).filter(
      (subject): subject is Subject =>
        typeof subject.id === 'string' &&
        typeof subject.name === 'string' &&
        !subjectIds.has(subject.id) &&
        !subjectNames.has(subject.name.trim().toLowerCase()),
    ),
    tasks: list<Task>(payload.tasks).filter(
      (task): task is Task => typeof task.id === 'string' && !taskIds.has(task.id),
    ),
    sessions: list<StudySession>(payload.sessions).filter((session): session is StudySession => {
      if (typeof session.id !== 'string' || typeof session.startedAt !== 'number') return false;
      const clientId = sessionClientId({ id: session.id });
      return clientId !== null
        ? !clientIds.has(clientId) && !starts.has(session.startedAt)
        : !starts.has(session.startedAt);
    }),
  };
}

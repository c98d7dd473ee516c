// What a stored backup would add to a device: only the records the device lacks (a session by its
// client id or its start, a task by its id, a subject by its id or its name), read defensively.
import { describe, expect, it } from 'vitest';
import { backupAdditions } from './backup-offer.ts';
import type { StudySession, Subject, Task } from './model.ts';

const subject = (id: string, name: string): Subject => ({ id, name, createdAt: 1 });
const task = (id: string): Task => ({
  id,
  title: `Task ${id}`,
  subjectId: null,
  day: null,
  done: false,
  completedAt: null,
  createdAt: 1,
  updatedAt: 1,
});
const session = (id: string, startedAt: number): StudySession => ({
  id,
  startedAt,
  endedAt: startedAt + 25 * 60_000,
  minutes: 25,
  subjectId: null,
  subjectName: null,
  taskId: null,
  taskTitle: null,
  correct: 0,
  incorrect: 0,
  skipped: 0,
  studyDay: '2026-11-20',
  synced: true,
});

const S1 = '00000000-0000-4000-8000-000000000001';
const S2 = '00000000-0000-4000-8000-000000000002';

describe('backupAdditions', () => {
  const device = {
    subjects: [subject('a', 'Anatomy')],
    tasks: [task('t1')],
    sessions: [session(S1, 1_000)],
  };

  it('adds nothing a device already holds: the offer does not appear for a backup the server has', () => {
    const payload = { subjects: [subject('a', 'Anatomy')], tasks: [task('t1')], sessions: [session(S1, 1_000)] };
    expect(backupAdditions(payload, device)).toEqual({ subjects: [], tasks: [], sessions: [] });
  });

  it('names what the device lacks', () => {
    const payload = {
      subjects: [subject('a', 'Anatomy'), subject('b', 'Biology'), subject('c', ' anatomy ')],
      tasks: [task('t1'), task('t2')],
      sessions: [session(S1, 1_000), session(S2, 9_000), session('old-1', 1_000), session('old-2', 5_000)],
    };
    const added = backupAdditions(payload, device);
    expect(added.subjects.map((item) => item.id)).toEqual(['b']);
    expect(added.tasks.map((item) => item.id)).toEqual(['t2']);
    // An older session without a client id is matched by its start, as the history pull matches it.
    expect(added.sessions.map((item) => item.id)).toEqual([S2, 'old-2']);
  });

  it('reads a payload from anywhere without failing', () => {
    expect(backupAdditions({ subjects: 'none', tasks: [null, 3, {}], sessions: [{ id: 5 }] }, device)).toEqual({
      subjects: [],
      tasks: [],
      sessions: [],
    });
  });
});

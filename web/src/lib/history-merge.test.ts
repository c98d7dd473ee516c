// Merging the backend's history into a device: no duplicates, no loss, the newer task edit wins,
// a voided session arrives voided and is not counted.
import { describe, expect, it } from 'vitest';
import { mergeSessions, mergeTasks, missingSubjects, type RemoteSession, type RemoteTask } from './history-merge.ts';
import type { StudySession, Task } from './model.ts';
import { computeStats } from './stats.ts';

const day = () => '2026-11-23';
const at = (hour: number) => Date.parse(`2026-11-23T${String(hour).padStart(2, '0')}:00:00Z`);

function local(id: string, hour: number, synced = false): StudySession {
  return {
    id,
    startedAt: at(hour),
    endedAt: at(hour) + 25 * 60_000,
    minutes: 25,
    subjectId: 'chem',
    subjectName: 'Chemistry',
    taskId: null,
    taskTitle: null,
    correct: 2,
    incorrect: 0,
    skipped: 0,
    studyDay: day(),
    synced,
  };
}

function remote(clientId: string | null, hour: number, voided: string | null = null): RemoteSession {
  return {
    id: crypto.randomUUID(),
    client_id: clientId,
    started_at: new Date(at(hour)).toISOString(),
    ended_at: new Date(at(hour) + 30 * 60_000).toISOString(),
    minutes: 30,
    subject_id: 'bio',
    subject_name: 'Biology',
    task_id: null,
    task_title: null,
    correct: 1,
    incorrect: 1,
    skipped: 0,
    voided_at: voided,
    void_reason: voided ? 'overlaps another session' : null,
  };
}

describe('mergeSessions', () => {
  it('adds the sessions of another device once, under their client id, however often it is pulled', () => {
    const theirs = crypto.randomUUID();
    const first = mergeSessions([], [remote(theirs, 8)], day);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ id: theirs, minutes: 30, synced: true, voidedAt: null, studyDay: '2026-11-23' });
    // Pulled again with the session now on the device: nothing to write, nothing doubled.
    expect(mergeSessions(first, [remote(theirs, 8)], day)).toEqual([]);
  });

  it('matches a local session by its client id (any case) and marks it synced instead of adding a copy', () => {
    const mine = local(crypto.randomUUID(), 9);
    const merged = mergeSessions([mine], [remote(mine.id.toUpperCase(), 9)], day);
    expect(merged).toEqual([{ ...mine, synced: true, voidedAt: null, voidReason: null }]);
  });

  it('matches a session recorded without a client id by its start instant', () => {
    const legacy = local('legacy-3', 7, true);
    expect(mergeSessions([legacy], [remote(null, 7)], day)).toEqual([]);
    expect(mergeSessions([{ ...legacy, synced: false }], [remote(null, 7)], day)).toEqual([
      { ...legacy, synced: true, voidedAt: null, voidReason: null },
    ]);
    const unknown = mergeSessions([], [remote(null, 6)], day);
    expect(unknown[0]?.id).toMatch(/^server-/);
  });

  it('leaves local sessions the backend does not have yet untouched (they wait in the outbox)', () => {
    const waiting = local(crypto.randomUUID(), 10);
    expect(mergeSessions([waiting], [remote(crypto.randomUUID(), 11)], day).map((s) => s.id)).not.toContain(waiting.id);
  });

  it('brings a voided session in voided, with its reason, and does not count it', () => {
    const mine = local(crypto.randomUUID(), 12, true);
    const voided = mergeSessions([mine], [remote(mine.id, 12, '2026-11-23T13:00:00Z')], day);
    expect(voided[0]).toMatchObject({
      id: mine.id,
      voidedAt: Date.parse('2026-11-23T13:00:00Z'),
      voidReason: 'overlaps another session',
    });
    const counted = local(crypto.randomUUID(), 14, true);
    const stats = computeStats([...voided, counted], '2026-11-23');
    expect(stats.today).toMatchObject({ minutes: 25, sessions: 1 });
  });
});

function task(id: string, updatedAt: number, title = 'Read chapter 4'): Task {
  return { id, title, subjectId: null, day: null, done: false, completedAt: null, createdAt: 1, updatedAt };
}

function remoteTask(id: string, updatedAt: number, title = 'Read chapter 4'): RemoteTask {
  return {
    id,
    title,
    subject_id: 'chem',
    subject_name: 'Chemistry',
    task_day: null,
    done: false,
    completed_at: null,
    created_at: new Date(1).toISOString(),
    updated_at: new Date(updatedAt).toISOString(),
  };
}

describe('mergeTasks', () => {
  const id = crypto.randomUUID();

  it('adds a task only the backend has, and not twice', () => {
    const first = mergeTasks([], [remoteTask(id, 5_000)], new Set());
    expect(first.put.map((t) => t.id)).toEqual([id]);
    expect(mergeTasks(first.put, [remoteTask(id, 5_000)], new Set()).put).toEqual([]);
  });

  it('takes the backend version when it is newer, and drops the older local edit still waiting', () => {
    const merged = mergeTasks([task(id, 1_000, 'Old title')], [remoteTask(id, 9_000, 'New title')], new Set([id]));
    expect(merged.put).toMatchObject([{ id, title: 'New title', updatedAt: 9_000 }]);
    expect(merged.dropPending).toEqual([id]);
  });

  it('keeps the local version when it is newer: sent again if nothing waits, left to the outbox if it does', () => {
    const newer = task(id, 9_000, 'Edited here');
    expect(mergeTasks([newer], [remoteTask(id, 1_000, 'Old')], new Set([id]))).toEqual({
      put: [],
      send: [],
      dropPending: [],
    });
    expect(mergeTasks([newer], [remoteTask(id, 1_000, 'Old')], new Set()).send).toEqual([newer]);
  });

  it('does not bring back a task deleted here whose delete still waits, and keeps local-only tasks', () => {
    const merged = mergeTasks([task('only-here', 1)], [remoteTask(id, 5_000)], new Set([id]));
    expect(merged).toEqual({ put: [], send: [], dropPending: [] });
  });
});

describe('missingSubjects', () => {
  it('adds each subject a pulled record names once, and none the device knows', () => {
    const added = missingSubjects(
      [{ id: 'chem', name: 'Chemistry', createdAt: 1 }],
      [
        { subjectId: 'chem', subjectName: 'Chemistry' },
        { subjectId: 'bio', subjectName: 'Biology' },
        { subjectId: 'bio', subjectName: 'Biology' },
        { subjectId: null, subjectName: 'Loose' },
      ],
      42,
    );
    expect(added).toEqual([{ id: 'bio', name: 'Biology', createdAt: 42 }]);
  });
});

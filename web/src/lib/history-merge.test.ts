// Merging the backend's history into a device: no duplicates, no loss, the newer task edit wins,
// a voided session arrives voided and is not counted.
import { describe, expect, it } from 'vitest';
import {
  mergeSessions,
  mergeTasks,
  missingSubjects,
  type RemoteSession,
  type RemoteTask,
  mergeSubjects,
  mergeTimer,
} from './history-merge.ts';
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

describe('mergeSubjects', () => {
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  const C = '00000000-0000-4000-8000-00000000000c';
  const row = (id: string, name: string) => ({ id, name, created_at: '2026-11-20T10:00:00.000Z' });

  it('adds the backend’s subjects the device lacks, with a subject that has no session yet', () => {
    const merged = mergeSubjects(
      [{ id: A, name: 'Anatomy', createdAt: 1 }],
      [row(A, 'Anatomy'), row(B, 'Organic chemistry')],
      new Set(),
      false,
    );
    expect(merged).toEqual({
      put: [{ id: B, name: 'Organic chemistry', createdAt: Date.parse('2026-11-20T10:00:00.000Z') }],
      send: [],
    });
  });

  it('does not bring back a subject deleted here whose deletion still waits', () => {
    expect(mergeSubjects([], [row(B, 'Organic chemistry')], new Set([B]), false).put).toEqual([]);
  });

  it('sends the device’s own subjects on its first pull only, and only those the backend can key', () => {
    const local = [
      { id: A, name: 'Anatomy', createdAt: 1 },
      { id: C, name: 'Calculus', createdAt: 2 },
      { id: 'chem', name: 'From an old backup', createdAt: 3 },
    ];
    expect(mergeSubjects(local, [row(A, 'Anatomy')], new Set(), true).send).toEqual([local[1]]);
    // Later, a subject the backend lacks was deleted on another device: sending it would bring it back.
    expect(mergeSubjects(local, [row(A, 'Anatomy')], new Set(), false).send).toEqual([]);
    expect(mergeSubjects(local, [row(A, 'Anatomy')], new Set([C]), true).send).toEqual([]);
  });
});

describe('mergeTimer', () => {
  const defaults = { focusMinutes: 25, breakMinutes: 5, cycles: 4, dailyGoalMinutes: 120 };
  const saved = {
    focus_minutes: 50,
    break_minutes: 10,
    cycles: 3,
    daily_goal_minutes: 180,
    timer_updated_at: '2026-11-28T10:00:00.000Z',
  };
  const savedAt = Date.parse(saved.timer_updated_at);

  it('gives a second device the saved settings instead of its defaults', () => {
    expect(mergeTimer(defaults, undefined, saved, false)).toEqual({
      kind: 'adopt',
      timer: { focusMinutes: 50, breakMinutes: 10, cycles: 3, dailyGoalMinutes: 180 },
      updatedAt: savedAt,
    });
  });

  it('takes the newer: the server’s over an older change here, this device’s over an older server', () => {
    expect(mergeTimer({ ...defaults, focusMinutes: 30 }, savedAt - 1, saved, false).kind).toBe('adopt');
    expect(mergeTimer({ ...defaults, focusMinutes: 30 }, savedAt + 1, saved, false)).toEqual({ kind: 'send' });
  });

  it('leaves a change waiting in the outbox to be sent, and settles once both agree', () => {
    expect(mergeTimer(defaults, undefined, saved, true)).toEqual({ kind: 'keep' });
    const same = { focusMinutes: 50, breakMinutes: 10, cycles: 3, dailyGoalMinutes: 180 };
    expect(mergeTimer(same, savedAt, saved, false)).toEqual({ kind: 'keep' });
  });

  it('sends this device’s choice to a server that never stored one, and changes nothing when neither chose', () => {
    const never = { ...saved, focus_minutes: null, timer_updated_at: null };
    expect(mergeTimer(defaults, 5, never, false)).toEqual({ kind: 'send' });
    expect(mergeTimer(defaults, undefined, never, false)).toEqual({ kind: 'keep' });
    expect(mergeTimer(defaults, 5, null, false)).toEqual({ kind: 'keep' });
  });
});

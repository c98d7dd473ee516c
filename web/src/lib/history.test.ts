// Two devices of one student against a real localbase (PGlite): what device A sends, device B
// pulls and merges without doubling anything, while B's own unsent session stays and then arrives
// once; a task edited on both keeps the newer edit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { Localbase } from '#localbase';
import { BackendWriter, type BackendAccess } from './backend-writer.ts';
import { mergeSessions, mergeSubjects, mergeTasks, mergeTimer } from './history-merge.ts';
import { HistoryReader } from './history-reader.ts';
import type { StudySession, Task } from './model.ts';
import { computeStats } from './stats.ts';
import { MemoryOutboxStore, Outbox } from './outbox.ts';

let localbase: Localbase;

beforeAll(async () => {
  localbase = await startLocalbaseStack();
}, 120_000);

afterAll(async () => {
  await localbase?.close();
});

async function signUp(email: string): Promise<BackendAccess> {
  const response = await fetch(`${localbase.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'history-password-1' }),
  });
  const body = (await response.json()) as { access_token: string; user: { id: string } };
  return {
    baseUrl: localbase.url,
    anonKey: async () => localbase.anonKey,
    token: async () => body.access_token,
    userId: () => body.user.id,
  };
}

function session(hoursAgo: number, minutes: number): StudySession {
  const startedAt = Date.now() - hoursAgo * 3_600_000;
  return {
    id: crypto.randomUUID(),
    startedAt,
    endedAt: startedAt + minutes * 60_000,
    minutes,
    subjectId: 'chem',
    subjectName: 'Chemistry',
    taskId: null,
    taskTitle: null,
    correct: 1,
    incorrect: 0,
    skipped: 0,
    studyDay: '2026-11-23',
    synced: false,
  };
}

const day = () => '2026-11-23';

describe('the history on two devices', () => {
  it('brings device A’s sessions to device B once, and B’s unsent session arrives once too', async () => {
    const access = await signUp('two-devices@example.com');
    const deviceA = new Outbox(new MemoryOutboxStore(), new BackendWriter(access));
    const fromA = [session(5, 25), session(4, 40)];
    for (const item of fromA) await deviceA.enqueue({ kind: 'session', session: item });
    expect(await deviceA.flush()).toMatchObject({ sent: 2, pending: 0 });

    // Device B has one session of its own, not sent yet.
    const fromB = session(3, 15);
    let deviceB: StudySession[] = [fromB];
    const reader = new HistoryReader(access);
    const pull = async () => {
      const merged = mergeSessions(deviceB, (await reader.read()).sessions, day);
      const byId = new Map(deviceB.map((item) => [item.id, item]));
      for (const item of merged) byId.set(item.id, item);
      deviceB = [...byId.values()];
    };

    await pull();
    expect(deviceB.map((item) => item.id).sort()).toEqual([...fromA.map((item) => item.id), fromB.id].sort());
    expect(deviceB.find((item) => item.id === fromB.id)?.synced).toBe(false);

    const outboxB = new Outbox(new MemoryOutboxStore(), new BackendWriter(access));
    await outboxB.enqueue({ kind: 'session', session: fromB });
    expect(await outboxB.flush()).toMatchObject({ sent: 1 });
    // A repeat of B's send (another tab, a lost answer) records nothing more.
    await outboxB.enqueue({ kind: 'session', session: fromB });
    expect(await outboxB.flush()).toMatchObject({ sent: 1 });

    await pull();
    await pull();
    expect(deviceB).toHaveLength(3);
    expect(deviceB.every((item) => item.synced)).toBe(true);
    const remote = (await reader.read()).sessions;
    expect(remote).toHaveLength(3);
    expect(remote.map((row) => row.client_id).sort()).toEqual(deviceB.map((item) => item.id).sort());
  });

  it('pulls a session an admin voided as voided, with the reason, and does not count it', async () => {
    const access = await signUp('voided@example.com');
    const outbox = new Outbox(new MemoryOutboxStore(), new BackendWriter(access));
    const kept = session(6, 30);
    const voided = session(3, 20);
    for (const item of [kept, voided]) await outbox.enqueue({ kind: 'session', session: item });
    expect(await outbox.flush()).toMatchObject({ sent: 2 });
    const reader = new HistoryReader(access);
    const serverId = (await reader.read()).sessions.find((row) => row.client_id === voided.id)?.id;
    const answer = await fetch(`${localbase.url}/rest/v1/rpc/void_study_session`, {
      method: 'POST',
      headers: {
        apikey: localbase.serviceRoleKey,
        authorization: `Bearer ${localbase.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ p_session_id: serverId, p_reason: 'a test session', p_voided_by: 'console' }),
    });
    expect(answer.status).toBe(200);

    const device = [
      { ...kept, synced: true },
      { ...voided, synced: true },
    ];
    const merged = mergeSessions(device, (await reader.read()).sessions, day);
    expect(merged).toEqual([{ ...voided, synced: true, voidedAt: expect.any(Number), voidReason: 'a test session' }]);
    const after = device.map((item) => merged.find((next) => next.id === item.id) ?? item);
    expect(computeStats(after, '2026-11-23').allTime).toMatchObject({ minutes: 30, sessions: 1 });
  });

  it('brings the subjects and the timer settings chosen on device A to device B', async () => {
    const access = await signUp('setup@example.com');
    const deviceA = new Outbox(new MemoryOutboxStore(), new BackendWriter(access));
    const subject = { id: crypto.randomUUID(), name: 'Organic chemistry', createdAt: Date.now() };
    const chosen = { focusMinutes: 50, breakMinutes: 10, cycles: 3, dailyGoalMinutes: 180 };
    await deviceA.enqueue({ kind: 'subject-upsert', subject });
    await deviceA.enqueue({ kind: 'timer-settings', timer: chosen });
    // A day-settings write afterwards (another device's time zone) leaves the timer settings alone.
    await deviceA.enqueue({ kind: 'settings', dayOffsetHours: 0, timezoneOffsetMinutes: 60 });
    expect(await deviceA.flush()).toMatchObject({ sent: 3, pending: 0, failed: 0 });

    const history = await new HistoryReader(access).read();
    expect(mergeSubjects([], history.subjects ?? [], new Set(), true).put).toMatchObject([
      { id: subject.id, name: 'Organic chemistry' },
    ]);
    const defaults = { focusMinutes: 25, breakMinutes: 5, cycles: 4, dailyGoalMinutes: 120 };
    expect(mergeTimer(defaults, undefined, history.timer, false)).toMatchObject({ kind: 'adopt', timer: chosen });

    // Deleted on A: gone from the backend, and not sent back by B.
    await deviceA.enqueue({ kind: 'subject-delete', subjectId: subject.id });
    expect(await deviceA.flush()).toMatchObject({ sent: 1 });
    expect((await new HistoryReader(access).read()).subjects).toEqual([]);
  });

  it('keeps the newer edit of a task edited on two devices', async () => {
    const access = await signUp('task-edits@example.com');
    const reader = new HistoryReader(access);
    const writer = new Outbox(new MemoryOutboxStore(), new BackendWriter(access));
    const created = Date.now() - 60_000;
    const task: Task = {
      id: crypto.randomUUID(),
      title: 'Read chapter 4',
      subjectId: null,
      day: null,
      done: false,
      completedAt: null,
      createdAt: created,
      updatedAt: created,
    };
    // Device B edits first (offline, still waiting); device A edits later and sends.
    const editedOnB = { ...task, title: 'Read chapter 4 and 5', updatedAt: created + 1_000 };
    await writer.enqueue({
      kind: 'task-upsert',
      task: { ...task, done: true, updatedAt: Date.now() },
      subjectName: null,
    });
    expect(await writer.flush()).toMatchObject({ sent: 1 });

    const merge = mergeTasks([editedOnB], (await reader.read()).tasks, new Set([task.id]));
    expect(merge.put).toMatchObject([{ id: task.id, title: 'Read chapter 4', done: true }]);
    expect(merge.dropPending).toEqual([task.id]);
  });
});

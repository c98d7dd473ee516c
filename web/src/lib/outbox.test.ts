// The outbox against a real localbase (PGlite): changes made while the backend cannot be reached
// wait, then arrive exactly once when it can; an answer lost on the way back does not make a
// duplicate; a refused change is kept aside while the rest go through.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { BackendWriter } from './backend-writer.ts';
import type { StudySession, Task } from './model.ts';
import { MemoryOutboxStore, Outbox } from './outbox.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

/**
 * A loopback proxy in front of localbase whose behaviour the test switches: `up` forwards,
 * `down` refuses connections like a stopped server, `lose-answer` forwards the request and then
 * drops the connection before the answer reaches the client, `hosted-status` forwards and answers
 * a 400 as 500, the status a hosted project gives every raised code but P0001.
 */
class Link {
  mode: 'up' | 'down' | 'lose-answer' | 'hosted-status' = 'up';
  /** In `lose-answer` mode, only answers to these paths are lost. */
  losePaths = /./;
  readonly requests: string[] = [];
  private server!: http.Server;
  url = '';

  async start(target: string) {
    const upstream = new URL(target);
    this.server = http.createServer((request, response) => {
      if (this.mode === 'down') {
        request.socket.destroy();
        return;
      }
      this.requests.push(`${request.method} ${request.url}`);
      const lose = this.mode === 'lose-answer' && this.losePaths.test(request.url ?? '');
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          if (lose) {
            answer.resume();
            answer.on('end', () => request.socket.destroy());
            return;
          }
          const status = this.mode === 'hosted-status' && answer.statusCode === 400 ? 500 : answer.statusCode;
          response.writeHead(status ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forward);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }
}

async function signUp(email: string): Promise<{ token: string; userId: string }> {
  const response = await fetch(`${localbase.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'outbox-password-1' }),
  });
  const body = (await response.json()) as { access_token: string; user: { id: string } };
  return { token: body.access_token, userId: body.user.id };
}

async function rows<T>(path: string, token: string): Promise<T[]> {
  const response = await fetch(`${localbase.url}/rest/v1/${path}`, {
    headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}` },
  });
  return (await response.json()) as T[];
}

function session(startedAt: number, minutes: number, correct = 0): StudySession {
  return {
    id: crypto.randomUUID(),
    startedAt,
    endedAt: startedAt + minutes * 60_000,
    minutes,
    subjectId: 'sub-1',
    subjectName: 'Chemistry',
    taskId: null,
    taskTitle: null,
    correct,
    incorrect: 0,
    skipped: 0,
    studyDay: '2026-11-23',
    synced: false,
  };
}

function task(title: string): Task {
  const now = Date.now();
  return {
    id: crypto.randomUUID(),
    title,
    subjectId: null,
    day: '2026-11-23',
    done: false,
    completedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

function outboxFor(link: Link, account: { token: string; userId: string }) {
  const writer = new BackendWriter({
    baseUrl: link.url,
    anonKey: async () => localbase.anonKey,
    token: async () => account.token,
    userId: () => account.userId,
  });
  return new Outbox(new MemoryOutboxStore(), writer);
}

let link: Link;

beforeAll(async () => {
  link = new Link();
  await link.start(localbase.url);
}, 120_000);

afterAll(async () => {
  await link?.close();
});

describe('the outbox against localbase', () => {
  it('keeps changes made offline and sends each exactly once when the backend is back', async () => {
    const account = await signUp('offline-first@example.com');
    const outbox = outboxFor(link, account);
    link.mode = 'down';
    const first = session(Date.now() - 3 * 3_600_000, 25, 4);
    const second = session(Date.now() - 2 * 3_600_000, 50, 1);
    const homework = task('Read chapter 4');
    await outbox.enqueue({ kind: 'session', session: first });
    await outbox.enqueue({ kind: 'session', session: second });
    await outbox.enqueue({ kind: 'task-upsert', task: homework, subjectName: null });

    const offline = await outbox.flush();
    expect(offline).toMatchObject({ sent: 0, pending: 3, stoppedBy: 'offline' });
    expect(await outbox.entries()).toHaveLength(3);
    expect((await outbox.entries())[0]!.attempts).toBe(1);

    link.mode = 'up';
    const online = await outbox.flush();
    expect(online).toMatchObject({ sent: 3, pending: 0, failed: 0, stoppedBy: null });
    expect(await outbox.entries()).toEqual([]);
    // A second flush (another trigger, another tab) finds nothing to send.
    expect(await outbox.flush()).toMatchObject({ sent: 0, pending: 0 });

    const recorded = await rows<{ minutes: number; correct: number }>(
      'study_sessions?select=minutes,correct&order=started_at',
      account.token,
    );
    expect(recorded).toEqual([
      { minutes: 25, correct: 4 },
      { minutes: 50, correct: 1 },
    ]);
    const [summary] = await rows<{ total_minutes: number; total_sessions: number }>(
      `user_stats_summary?select=total_minutes,total_sessions&user_id=eq.${account.userId}`,
      account.token,
    );
    expect(summary).toEqual({ total_minutes: 75, total_sessions: 2 });
    expect(await rows('user_tasks?select=title', account.token)).toEqual([{ title: 'Read chapter 4' }]);
  });

  it('does not duplicate a session whose answer was lost: the retry finds it recorded', async () => {
    const account = await signUp('lost-answer@example.com');
    const outbox = outboxFor(link, account);
    const lost = session(Date.now() - 3_600_000, 30, 2);
    await outbox.enqueue({ kind: 'session', session: lost });

    // The recording call reaches the backend and is committed; its answer never comes back.
    link.mode = 'lose-answer';
    link.losePaths = /\/rpc\/record_study_session/;
    link.requests.length = 0;
    const broken = await outbox.flush();
    expect(broken).toMatchObject({ sent: 0, pending: 1, stoppedBy: 'offline' });
    expect(link.requests.filter((request) => request.includes('record_study_session'))).toHaveLength(1);
    expect(await rows('study_sessions?select=id', account.token)).toHaveLength(1);

    link.mode = 'up';
    const retried = await outbox.flush();
    expect(retried).toMatchObject({ sent: 1, pending: 0 });
    expect(await rows('study_sessions?select=id', account.token)).toHaveLength(1);
    const [summary] = await rows<{ total_sessions: number }>(
      `user_stats_summary?select=total_sessions&user_id=eq.${account.userId}`,
      account.token,
    );
    expect(summary?.total_sessions).toBe(1);
  });

  it('replaces a waiting change of the same key (its idempotency key), so three edits send one write', async () => {
    const account = await signUp('coalesce@example.com');
    const outbox = outboxFor(link, account);
    link.mode = 'down';
    const planned = task('Flashcards');
    await outbox.enqueue({ kind: 'task-upsert', task: planned, subjectName: null });
    await outbox.enqueue({ kind: 'task-upsert', task: { ...planned, title: 'Flashcards, deck 2' }, subjectName: null });
    await outbox.enqueue({
      kind: 'task-upsert',
      task: { ...planned, title: 'Flashcards, deck 2', done: true, completedAt: Date.now() },
      subjectName: null,
    });
    expect(await outbox.entries()).toHaveLength(1);
    expect((await outbox.entries())[0]!.revision).toBe(3);

    link.mode = 'up';
    link.requests.length = 0;
    expect(await outbox.flush()).toMatchObject({ sent: 1 });
    expect(link.requests.filter((request) => request.includes('user_tasks'))).toHaveLength(1);
    expect(await rows('user_tasks?select=id,title,done', account.token)).toEqual([
      { id: planned.id, title: 'Flashcards, deck 2', done: true },
    ]);

    // Sending the same upsert again (a retry after a lost answer) leaves one row.
    await outbox.enqueue({
      kind: 'task-upsert',
      task: { ...planned, title: 'Flashcards, deck 2', done: true, completedAt: Date.now() },
      subjectName: null,
    });
    await outbox.flush();
    expect(await rows('user_tasks?select=id', account.token)).toHaveLength(1);
  });

  it('sets aside a change the backend refuses for good and sends the others', async () => {
    const account = await signUp('refused@example.com');
    const outbox = outboxFor(link, account);
    link.mode = 'up';
    const future = session(Date.now() + 24 * 3_600_000, 25); // a session cannot start tomorrow
    const fine = session(Date.now() - 3_600_000, 20);
    await outbox.enqueue({ kind: 'session', session: future });
    await outbox.enqueue({ kind: 'session', session: fine });
    const result = await outbox.flush();
    expect(result).toMatchObject({ sent: 1, failed: 1, pending: 0, stoppedBy: null });
    const [refused] = await outbox.entries();
    expect(refused).toMatchObject({ failed: true, key: `session:${future.id}` });
    expect(refused?.lastError).toBe(
      'This session starts in the future or has an impossible length or answer count, so it was not saved.',
    );
    expect(await rows<{ minutes: number }>('study_sessions?select=minutes', account.token)).toEqual([{ minutes: 20 }]);
    // Never retried by itself.
    expect(await outbox.flush()).toMatchObject({ sent: 0, failed: 1 });
  });

  it('sets aside a session the database finds implausible, with a sentence the student understands', async () => {
    const account = await signUp('implausible@example.com');
    const outbox = outboxFor(link, account);
    link.mode = 'up';
    // Finished on a device whose clock runs a quarter of an hour ahead: it ends in the future.
    const ahead = session(Date.now() - 10 * 60_000, 25);
    const first = session(Date.now() - 3 * 3_600_000, 60, 30);
    const overlapping = session(Date.now() - 3 * 3_600_000 + 30 * 60_000, 45);
    const crammed = session(Date.now() - 5 * 3_600_000, 10, 101);
    for (const each of [ahead, first, overlapping, crammed]) await outbox.enqueue({ kind: 'session', session: each });
    expect(await outbox.flush()).toMatchObject({ sent: 1, failed: 3, pending: 0, stoppedBy: null });
    const refused = Object.fromEntries((await outbox.entries()).map((entry) => [entry.key, entry]));
    expect(refused[`session:${ahead.id}`]).toMatchObject({
      failed: true,
      lastError: 'This session ends in the future: check the date and time of your device. It was not saved.',
    });
    expect(refused[`session:${overlapping.id}`]).toMatchObject({
      failed: true,
      lastError: 'This session overlaps another session you already saved, so it was not saved.',
    });
    expect(refused[`session:${crammed.id}`]).toMatchObject({
      failed: true,
      lastError: 'This session has more than 10 answers per minute of study, so it was not saved.',
    });
    expect(await rows<{ minutes: number }>('study_sessions?select=minutes', account.token)).toEqual([{ minutes: 60 }]);
    expect(await outbox.flush()).toMatchObject({ sent: 0, failed: 3, pending: 0, stoppedBy: null });
  });

  it('does not retry such a session forever when a hosted project answers its refusal with 500', async () => {
    const account = await signUp('hosted-refusal@example.com');
    const outbox = outboxFor(link, account);
    link.mode = 'hosted-status';
    const ahead = session(Date.now() - 10 * 60_000, 25);
    const fine = session(Date.now() - 3_600_000, 20);
    await outbox.enqueue({ kind: 'session', session: ahead });
    await outbox.enqueue({ kind: 'session', session: fine });
    expect(await outbox.flush()).toMatchObject({ sent: 1, failed: 1, pending: 0, stoppedBy: null });
    const [refused] = await outbox.entries();
    expect(refused).toMatchObject({ key: `session:${ahead.id}`, failed: true, attempts: 1 });
    expect(refused?.lastError).toMatch(/ends in the future/);
    link.mode = 'up';
  });
});

// The session write, against a stand-in for the backend that keeps record_study_session's contract
// (one row per student and client id; a repeat answers the existing id and changes nothing): a
// session goes out once, under its local uuid, in a request that outlives the page; an answer lost
// on the way back is retried without a duplicate; a session from an older backup (no uuid) is
// still looked up by its start instant first.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackendWriter } from './backend-writer.ts';
import { sessionClientId, type StudySession } from './model.ts';
import { MemoryOutboxStore, Outbox } from './outbox.ts';

interface Recorded {
  id: string;
  client_id: string | null;
  started_at: string;
}

/** The backend's session rows and the requests it saw; `loseNextAnswer` commits, then drops the answer. */
class FakeBackend {
  rows: Recorded[] = [];
  requests: { url: string; body: Record<string, unknown> | null; keepalive: boolean }[] = [];
  loseNextAnswer = false;
  down = false;

  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (this.down) throw new TypeError('Failed to fetch');
    const url = String(input);
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
    this.requests.push({ url, body, keepalive: init.keepalive === true });
    if (url.includes('/rest/v1/study_sessions?')) {
      const startedAt = decodeURIComponent(/started_at=eq\.([^&]+)/.exec(url)?.[1] ?? '');
      return Response.json(this.rows.filter((row) => row.started_at === startedAt).map(({ id }) => ({ id })));
    }
    if (url.endsWith('/rest/v1/rpc/record_study_session') && body) {
      const clientId = (body.p_client_id as string | undefined) ?? null;
      let row = clientId === null ? undefined : this.rows.find((item) => item.client_id === clientId);
      if (!row) {
        row = { id: crypto.randomUUID(), client_id: clientId, started_at: String(body.p_started_at) };
        this.rows.push(row);
      }
      if (this.loseNextAnswer) {
        this.loseNextAnswer = false;
        throw new TypeError('network connection lost');
      }
      return Response.json(row.id);
    }
    return new Response('{"message":"not here"}', { status: 404 });
  };
}

function session(id: string = crypto.randomUUID()): StudySession {
  const startedAt = Date.parse('2026-11-23T08:00:00Z');
  return {
    id,
    startedAt,
    endedAt: startedAt + 25 * 60_000,
    minutes: 25,
    subjectId: null,
    subjectName: null,
    taskId: null,
    taskTitle: null,
    correct: 3,
    incorrect: 1,
    skipped: 0,
    studyDay: '2026-11-23',
    synced: false,
  };
}

function writer() {
  return new BackendWriter({
    baseUrl: 'http://backend.test',
    anonKey: async () => 'anon',
    token: async () => 'token',
    userId: () => 'user-1',
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('the session write', () => {
  it('sends one call, under the local uuid as client id, that outlives the page', async () => {
    const backend = new FakeBackend();
    vi.stubGlobal('fetch', backend.fetch);
    const finished = session();
    await writer().send({ kind: 'session', session: finished });
    expect(backend.requests).toHaveLength(1);
    expect(backend.requests[0]).toMatchObject({
      url: 'http://backend.test/rest/v1/rpc/record_study_session',
      keepalive: true,
      body: { p_client_id: finished.id, p_minutes: 25, p_correct: 3 },
    });
  });

  it('sends a session exactly once although the answer to the first try was lost', async () => {
    const backend = new FakeBackend();
    vi.stubGlobal('fetch', backend.fetch);
    const outbox = new Outbox(new MemoryOutboxStore(), writer());
    await outbox.enqueue({ kind: 'session', session: session() });

    backend.loseNextAnswer = true;
    expect(await outbox.flush()).toMatchObject({ sent: 0, pending: 1, stoppedBy: 'offline' });
    expect(backend.rows).toHaveLength(1);

    expect(await outbox.flush()).toMatchObject({ sent: 1, pending: 0, stoppedBy: null });
    expect(await outbox.entries()).toEqual([]);
    expect(backend.rows).toHaveLength(1);
  });

  it('keeps a session queued while the backend is unreachable and sends it once when it is back', async () => {
    const backend = new FakeBackend();
    vi.stubGlobal('fetch', backend.fetch);
    const outbox = new Outbox(new MemoryOutboxStore(), writer());
    backend.down = true;
    await outbox.enqueue({ kind: 'session', session: session() });
    await outbox.enqueue({ kind: 'session', session: { ...session(), startedAt: Date.parse('2026-11-23T09:00:00Z') } });
    expect(await outbox.flush()).toMatchObject({ sent: 0, pending: 2, stoppedBy: 'offline' });
    expect(await outbox.flush()).toMatchObject({ sent: 0, pending: 2, stoppedBy: 'offline' });

    backend.down = false;
    expect(await outbox.flush()).toMatchObject({ sent: 2, pending: 0 });
    expect(await outbox.flush()).toMatchObject({ sent: 0, pending: 0 });
    expect(backend.rows).toHaveLength(2);
  });

  it('looks a session without a uuid up by its start instant, and does not record it twice', async () => {
    const backend = new FakeBackend();
    vi.stubGlobal('fetch', backend.fetch);
    const legacy = session('legacy-17');
    expect(sessionClientId(legacy)).toBeNull();
    await writer().send({ kind: 'session', session: legacy });
    await writer().send({ kind: 'session', session: legacy });
    expect(backend.rows).toHaveLength(1);
    expect(backend.requests.map((request) => request.url.split('/rest/v1/')[1]?.split('?')[0])).toEqual([
      'study_sessions',
      'rpc/record_study_session',
      'study_sessions',
    ]);
    expect(backend.requests[1]?.body).not.toHaveProperty('p_client_id');
  });
});

// Every backend call has a deadline: a backend that accepts and never answers, one that answers
// slowly, and one that refuses connections, met by the proxy (HTTP and realtime WebSocket) and by
// every wrapper route. The wrappers run with their real deadlines: they must answer within 5 s.
// Almost all of it is waiting on deadlines with the CPU idle, so the tests run at once
// (describe.concurrent): each makes requests of its own and reads only its own answers, and the
// gateways and backends they share keep nothing from one request to the next that another test
// asserts on. Their bounds are each measured from the test's own request.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, it } from 'vitest';
import WebSocket from 'ws';
import { BackendClient, type BackendError } from '../src/backend/backend-client.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { refusingBackendUrl, silentBackend, slowBackend, type FaultyBackend } from './backend-faults.ts';

const USER_ID = '11111111-2222-3333-4444-555555555555';
const TOKEN = `e30.${Buffer.from(JSON.stringify({ sub: USER_ID })).toString('base64url')}.sig`;
const keys = { anonKey: 'anon', serviceRoleKey: 'service' };

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe.concurrent('a backend that accepts connections and never answers', () => {
  let silent: FaultyBackend;
  let gateway: TestGateway;
  let baseUrl: string;

  beforeAll(async () => {
    silent = await silentBackend();
    gateway = await startTestGateway({
      backend: { url: silent.url, ...keys },
      proxy: { timeouts: { responseTimeoutMs: 1_000, storageIdleTimeoutMs: 2_500 } },
    });
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await silent.close();
  });

  // The longest first: at most five tests run at once (maxConcurrency), the rest queue.
  it('answers every wrapper route within 5 s with 504 backend_timeout', async ({ expect }) => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const credentials = { username: 'ada@example.com', password: 'long-enough-1' };
    const calls: Array<[string, string, Record<string, string>, unknown]> = [
      ['POST', '/__auth/signup', {}, credentials],
      ['POST', '/__auth/login', {}, credentials],
      ['POST', '/__auth/check', {}, { username: 'ada@example.com' }],
      ['GET', '/__auth/bootstrap', bearer, undefined],
      ['GET', '/__auth/profile', bearer, undefined],
      ['POST', '/__auth/profile', bearer, { display_name: 'Ada' }],
      ['GET', '/__auth/backup/best', bearer, undefined],
      ['GET', '/__auth/backup/latest', bearer, undefined],
      ['POST', '/__auth/backup', bearer, { payload: { sessions: [] } }],
      ['POST', '/__auth/snapshot', bearer, { payload: { sessions: [] } }],
      ['POST', '/__auth/import', bearer, { payload: { sessions: [] } }],
      ['POST', '/__auth/restore-best-backup', bearer, {}],
      ['POST', '/__leaderboard', bearer, { period: 'week' }],
    ];
    // The bound is 5 s of the gateway's time. On a machine so busy that this process is not run for
    // a while, every timer here fires late: a control timer of the same 4 s, started with the
    // requests, measures by how much, and the event loop's worst delay covers the answering after.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const controlStarted = performance.now();
    const controlLateBy = new Promise<number>((resolve) =>
      setTimeout(() => resolve(performance.now() - controlStarted - 4_000), 4_000),
    );
    const answers = await Promise.all(
      calls.map(([method, url, headers, body]) =>
        timed(() =>
          fetch(`${baseUrl}${url}`, {
            method,
            headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }).then(async (response) => ({ status: response.status, body: await response.json() })),
        ),
      ),
    );
    lag.disable();
    const unscheduledMs = Math.max(0, await controlLateBy) + lag.max / 1e6;
    answers.forEach(({ result, ms }, index) => {
      const route = `${calls[index]?.[0]} ${calls[index]?.[1]}`;
      expect(result.status, route).toBe(504);
      expect(result.body.error, route).toBe('backend_timeout');
      expect(ms, `${route} (event loop delayed up to ${Math.round(unscheduledMs)} ms)`).toBeLessThan(
        5_000 + unscheduledMs,
      );
    });
  }, 20_000);

  it('gets 504 backend_timeout from the proxy at its response deadline, not a hang', async ({ expect }) => {
    const { result: response, ms } = await timed(() =>
      fetch(`${baseUrl}/__backend/rest/v1/items`, { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: 'backend_timeout', message: 'The backend did not answer in time.' });
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(4_000);
  });

  it('gives a storage transfer the longer idle deadline, and still ends it', async ({ expect }) => {
    const { result: response, ms } = await timed(() =>
      fetch(`${baseUrl}/__backend/storage/v1/object/study-material/a/b.pdf`),
    );
    expect(response.status).toBe(504);
    expect(ms).toBeGreaterThanOrEqual(2_400);
    expect(ms).toBeLessThan(6_000);
  });
});

describe.concurrent('a backend that answers slowly', () => {
  let slow: Awaited<ReturnType<typeof slowBackend>>;
  let gateway: TestGateway;
  let baseUrl: string;

  beforeAll(async () => {
    slow = await slowBackend((url) =>
      url.startsWith('/storage/') ? 1_500 : url.startsWith('/rest/v1/late') ? 1_500 : 300,
    );
    gateway = await startTestGateway({
      backend: { url: slow.url, ...keys },
      proxy: { timeouts: { responseTimeoutMs: 1_000, storageIdleTimeoutMs: 3_000, socketIdleTimeoutMs: 800 } },
    });
    baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await slow.close();
  });

  it('passes an answer that comes within the deadline', async ({ expect }) => {
    const response = await fetch(`${baseUrl}/__backend/rest/v1/items`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('times out a data call past the short deadline but lets storage take longer', async ({ expect }) => {
    expect((await fetch(`${baseUrl}/__backend/rest/v1/late`)).status).toBe(504);
    expect((await fetch(`${baseUrl}/__backend/storage/v1/object/public/avatars/a.png`)).status).toBe(200);
  });

  it('bounds the calls of one route by its budget, even when each call is in time', async ({ expect }) => {
    const route = new BackendClient(
      { url: slow.url, ...keys },
      { callDeadlineMs: 1_000, routeBudgetMs: 1_000 },
    ).forRoute();
    const outcomes: string[] = [];
    for (let call = 0; call < 5; call++) {
      outcomes.push(
        await route.request('/rest/v1/items', { credential: { anon: true } }).then(
          () => 'ok',
          (error: BackendError) => `${error.status} ${error.code}`,
        ),
      );
    }
    // 300 ms each: at most three fit in the budget of 1 s (fewer on a busy machine); every call after
    // the budget is spent is cut or never starts.
    const answered = outcomes.filter((outcome) => outcome === 'ok').length;
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(answered).toBeLessThanOrEqual(3);
    expect(outcomes).toEqual([...Array(answered).fill('ok'), ...Array(5 - answered).fill('504 backend_timeout')]);
  });

  it('closes a realtime socket after its idle deadline, and keeps one that talks', async ({ expect }) => {
    // Both at once: the talking socket's time past the deadline overlaps the quiet one's wait.
    const talking = new WebSocket(`${baseUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?vsn=1.0.0`);
    await new Promise((resolve) => talking.on('open', resolve));
    const heartbeat = setInterval(() => talking.send('{"event":"heartbeat"}'), 300);
    const talkingSince = performance.now();
    const quiet = new WebSocket(`${baseUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?vsn=1.0.0`);
    const closed = await new Promise<{ code: number; ms: number }>((resolve, reject) => {
      const started = performance.now();
      quiet.on('close', (code) => resolve({ code, ms: performance.now() - started }));
      quiet.on('error', reject);
    });
    expect(closed.code).toBe(1001);
    expect(closed.ms).toBeGreaterThanOrEqual(700);

    // A real clock: the server's idle timer is what is tested. Twice its deadline (800 ms) of talk.
    const talked = performance.now() - talkingSince;
    if (talked < 1_600) await new Promise((resolve) => setTimeout(resolve, 1_600 - talked));
    clearInterval(heartbeat);
    expect(talking.readyState).toBe(WebSocket.OPEN);
    talking.close();
  });
});

describe.concurrent('a backend that refuses connections', () => {
  it('gets 502 backend_unavailable at once from the proxy and the wrappers', async ({ expect }) => {
    const gateway = await startTestGateway({ backend: { url: await refusingBackendUrl(), ...keys } });
    try {
      const proxied = await timed(() => gateway.app.inject({ url: '/__backend/rest/v1/items' }));
      expect(proxied.result.statusCode).toBe(502);
      expect(proxied.result.json().error).toBe('backend_unavailable');
      const wrapped = await timed(() =>
        gateway.app.inject({
          method: 'POST',
          url: '/__leaderboard',
          headers: { authorization: `Bearer ${TOKEN}` },
          payload: { period: 'day' },
        }),
      );
      expect(wrapped.result.statusCode).toBe(502);
      expect(wrapped.result.json().error).toBe('backend_unavailable');
      expect(Math.max(proxied.ms, wrapped.ms)).toBeLessThan(2_000);
    } finally {
      await gateway.close();
    }
  });
});

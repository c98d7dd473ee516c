// The focus page's pairing state machine against a real gateway on loopback (requests with fetch,
// the event stream with undici's EventSource, which behaves as the browser's): pairing off and on,
// a reload keeping its code, the phone's presence, and every refusal a page meets: a wrong code, a
// channel the server forgot (a restart, ten idle minutes), pairing switched off, a full server, a
// token it cannot read, and a server that does not answer.
//
// The tests run at once (describe.concurrent): most of their time is spent waiting on the stream's
// reconnection with the CPU idle. Each starts gateways of its own (each with its own relay) and
// pages of its own, and closes them when it finishes (`opened`), so nothing one test sends or
// closes reaches another.
import { EventSource } from 'undici';
import { describe, it, type TestContext } from 'vitest';
import { PipRelay } from '#gateway/src/pip/pip-relay.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import type { PairingView } from './pairing.ts';
import { CHANNEL_STORAGE_KEY, PhoneLink, STREAM_LOST_AFTER_MS, type PhoneLinkOptions } from './phone-link.ts';
import type { EventSourceLike, RelayedAction } from './relay.ts';

interface Server {
  gateway: TestGateway;
  url: string;
  port: number;
}

/**
 * One test's gateways and pages: started through it, stopped and closed when the test finishes
 * (pages first), and a gateway closed by the test itself (a restart) is not closed again.
 */
function opened({ onTestFinished }: Pick<TestContext, 'onTestFinished'>) {
  const gateways = new Set<TestGateway>();
  const building = new Set<Promise<unknown>>();
  const links: PhoneLink[] = [];
  onTestFinished(async () => {
    for (const link of links.splice(0)) link.stop();
    // A gateway still being built when the test failed is closed too.
    await Promise.allSettled(building);
    for (const gateway of gateways) {
      const closing = gateway.close();
      // Connections the pages left open go with it: after a restart on the same port, fetch may
      // hold one the server was never sent a request on, and the close would wait for undici to
      // drop it (its keep-alive timeout, 4 s).
      gateway.app.server.closeAllConnections();
      await closing;
    }
    gateways.clear();
  });

  /**
   * A gateway built but not listening yet: a restart built before the old server closes leaves its
   * port free only for a moment, so the page's stream comes back at its first reconnection.
   */
  async function unstarted(options: { pairing: boolean; relay?: PipRelay }) {
    const started = startTestGateway({
      config: { pipPairing: options.pairing },
      ...(options.relay ? { relay: options.relay } : {}),
    }).then((gateway) => {
      gateways.add(gateway);
      return gateway;
    });
    building.add(started);
    const gateway = await started.finally(() => building.delete(started));
    return {
      async listen(port = 0): Promise<Server> {
        const url = await gateway.app.listen({ host: '127.0.0.1', port });
        return { gateway, url, port: Number(new URL(url).port) };
      },
    };
  }

  async function server(options: { pairing: boolean; port?: number; relay?: PipRelay }): Promise<Server> {
    return (await unstarted(options)).listen(options.port);
  }

  /** The server goes away (a restart, a machine that is down). */
  async function closeServer({ gateway }: Server): Promise<void> {
    gateways.delete(gateway);
    await gateway.close();
  }

  /** A focus page's link: what it shows, what it applied, the snapshot it posts. */
  function page(base: string, subject: string, storage = new MemoryStorage(), extra: Partial<PhoneLinkOptions> = {}) {
    const views: PairingView[] = [];
    const actions: RelayedAction[] = [];
    const state = { correct: 0 };
    const link = new PhoneLink({
      base,
      fetch: (url, init) => fetch(url, init),
      openStream: (url) => new EventSource(url) as unknown as EventSourceLike,
      snapshot: () => snapshot(subject, state.correct),
      onAction: (action) => {
        actions.push(action);
        if (action.action === 'correct') state.correct++;
        link.post();
      },
      onView: (view) => views.push(view),
      storage,
      ...extra,
    });
    links.push(link);
    link.start();
    return { link, views, actions, storage, view: () => link.view() };
  }

  return { unstarted, server, closeServer, page };
}

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

function snapshot(subject: string, correct: number) {
  return {
    phase: 'focus' as const,
    running: true,
    remainingMs: 600_000,
    completionAtMs: Date.now() + 600_000,
    subject: { id: subject.toLowerCase(), name: subject },
    task: null,
    attempts: { correct, incorrect: 0, skipped: 0 },
    target: null,
  };
}

async function until<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const phoneGet = (base: string, code?: string) =>
  fetch(`${base}/api/pip/state`, { headers: code ? { 'x-pip-code': code } : {} });
const phoneSend = (base: string, code: string | undefined, action: string) =>
  fetch(`${base}/api/pip/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(code ? { 'x-pip-code': code } : {}) },
    body: JSON.stringify({ action }),
  });

function codeOf(view: PairingView): string {
  if (view.status !== 'on') throw new Error(`not paired: ${view.status}`);
  return view.code;
}

const live = (view: PairingView) => (view.status === 'on' || view.status === 'off') && view.stream === 'live';

describe.concurrent('pairing off (PIP_PAIRING=off)', () => {
  it('says so, uses the shared channel, posts on hello, and applies each action once', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    const { url } = await server({ pairing: false });
    const biology = page(url, 'Biology');
    expect(biology.views[0]).toEqual({ status: 'pairing' });
    await until(biology.view, live);
    expect(biology.view()).toMatchObject({ status: 'off', phone: { state: 'none' } });
    expect(biology.storage.items.size).toBe(0);
    // The hello made the page post its snapshot: any phone reads it, no code needed.
    await until(
      async () => (await (await phoneGet(url)).json()) as { subject: { name: string } | null },
      (body) => body.subject?.name === 'Biology',
    );
    expect(await (await phoneSend(url, undefined, 'correct')).json()).toMatchObject({ delivered: 1 });
    await until(
      () => biology.actions.length,
      (count) => count === 1,
    );
    await until(
      async () => (await (await phoneGet(url)).json()) as { attempts: { correct: number } },
      (body) => body.attempts.correct === 1,
    );
    expect(biology.actions.map((action) => action.action)).toEqual(['correct']);
  });
});

describe.concurrent('pairing on', () => {
  it('shows a code that a phone needs: without it or with a wrong one the phone is refused', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    const { url } = await server({ pairing: true });
    const biology = page(url, 'Biology');
    const view = await until(biology.view, live);
    const code = codeOf(view);
    expect(code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/);
    expect(view).toMatchObject({ renewed: false, phone: { state: 'none' } });
    expect(biology.storage.getItem(CHANNEL_STORAGE_KEY)).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const without = await phoneGet(url);
    expect(without.status).toBe(401);
    expect((await without.json()).error).toBe('pairing_required');
    const wrongCode = code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
    const wrong = await phoneSend(url, wrongCode, 'correct');
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error).toBe('pairing_code_invalid');
    expect(biology.actions).toEqual([]);

    const withCode = await until(
      async () => (await (await phoneGet(url, code)).json()) as { subject: { name: string } | null },
      (body) => body.subject?.name === 'Biology',
    );
    expect(withCode.subject?.name).toBe('Biology');
    expect(await (await phoneSend(url, code.toLowerCase(), 'correct')).json()).toMatchObject({ delivered: 1 });
    await until(
      () => biology.actions.length,
      (count) => count === 1,
    );
  });

  it('keeps its code across a reload of the tab, and two pages never share a code or an action', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    const { url } = await server({ pairing: true });
    const storage = new MemoryStorage();
    const first = page(url, 'Biology', storage);
    const code = codeOf(await until(first.view, live));
    first.link.stop();
    const reloaded = page(url, 'Biology', storage);
    const again = await until(reloaded.view, live);
    expect(again).toMatchObject({ status: 'on', code, renewed: false });

    const history = page(url, 'History');
    const historyCode = codeOf(await until(history.view, live));
    expect(historyCode).not.toBe(code);
    await phoneSend(url, historyCode, 'correct');
    await until(
      () => history.actions.length,
      (count) => count === 1,
    );
    // Time for a late action, were there one: nothing arriving has no event to wait on.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reloaded.actions).toEqual([]);
  });

  it('shows a phone arriving and, after it goes quiet, gone; a refused phone does not count', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    const { url } = await server({ pairing: true, relay: new PipRelay(60_000, 256 * 1024, {}, 400) });
    const biology = page(url, 'Biology');
    const code = codeOf(await until(biology.view, live));
    await phoneGet(url, code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');
    // Time for a pairing by the wrong code to show, were it accepted.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(biology.view()).toMatchObject({ phone: { state: 'none' } });
    await phoneGet(url, code);
    await until(biology.view, (view) => view.status === 'on' && view.phone.state === 'present');
    await until(biology.view, (view) => view.status === 'on' && view.phone.state === 'gone', 3_000);
  });

  it('pairs again with a new code, marked renewed, when a restarted server forgot the channel; the old code is refused', async ({
    expect,
    onTestFinished,
  }) => {
    const { unstarted, server, closeServer, page } = opened({ onTestFinished });
    const first = await server({ pairing: true });
    // The page shows a stream down for STREAM_LOST_AFTER_MS (4 s) as lost; what is tested is that it
    // does, and what follows, so that timer runs 200 ms here. Its other timers run as they are (its
    // retries here wait 0 or 1 s, never the same 4 s).
    const biology = page(first.url, 'Biology', new MemoryStorage(), {
      setTimer: (run, ms) => setTimeout(run, ms === STREAM_LOST_AFTER_MS ? 200 : ms),
    });
    // The restarted server is built meanwhile (`unstarted`).
    const [shown, restarted] = await Promise.all([until(biology.view, live), unstarted({ pairing: true })]);
    const oldCode = codeOf(shown);
    await closeServer(first);
    // The stream drops and shows as lost while nothing answers.
    await until(biology.view, (view) => view.status === 'on' && view.stream === 'lost', 8_000);
    const second = await restarted.listen(first.port);
    // The page comes back with EventSource's own reconnection, 2 s after the stream dropped (the
    // server's `retry: 2000`): a real clock, the browser's, which the page does not set.
    const view = await until(
      biology.view,
      (current) => live(current) && current.status === 'on' && current.code !== oldCode,
      15_000,
    );
    expect(view).toMatchObject({ status: 'on', renewed: true });
    const refused = await phoneGet(second.url, oldCode);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe('pairing_code_invalid');
    // The new channel has the page's snapshot again.
    await until(
      async () => (await (await phoneGet(second.url, codeOf(view))).json()) as { subject: { name: string } | null },
      (body) => body.subject?.name === 'Biology',
    );
  }, 30_000);

  it('gets a new code after a reload when the page was away longer than the idle timeout', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    let now = Date.now();
    const relay = new PipRelay(60_000, 256 * 1024, { idleTimeoutMs: 60_000, now: () => now });
    const { url } = await server({ pairing: true, relay });
    const storage = new MemoryStorage();
    const before = page(url, 'Biology', storage);
    const oldCode = codeOf(await until(before.view, live));
    before.link.stop(); // the tab is closed
    // The pairing is idle once the server has seen its stream close.
    await until(
      () => relay.openStreams,
      (streams) => streams === 0,
    );
    now += 61_000;
    // The server forgets idle pairings on its ping timer or when another page pairs.
    await until(page(url, 'History').view, live);
    const after = page(url, 'Biology', storage);
    const view = await until(after.view, live);
    expect(codeOf(view)).not.toBe(oldCode);
    expect(view).toMatchObject({ renewed: true });
    expect((await phoneGet(url, oldCode)).status).toBe(401);
  });

  it('follows a server restarted with pairing off: the code goes away and phones need none', async ({
    expect,
    onTestFinished,
  }) => {
    const { unstarted, server, closeServer, page } = opened({ onTestFinished });
    const first = await server({ pairing: true });
    const biology = page(first.url, 'Biology');
    // The restarted server is built meanwhile (`unstarted`).
    const [, restarted] = await Promise.all([until(biology.view, live), unstarted({ pairing: false })]);
    await closeServer(first);
    await restarted.listen(first.port);
    // EventSource's own reconnection, 2 s after the stream dropped (the server's `retry: 2000`):
    // a real clock, the browser's, which the page does not set.
    await until(biology.view, (view) => view.status === 'off' && view.stream === 'live', 15_000);
    expect(biology.storage.items.size).toBe(0);
    await until(
      async () => (await (await phoneGet(first.url)).json()) as { subject: { name: string } | null },
      (body) => body.subject?.name === 'Biology',
    );
  }, 30_000);

  it('says the server is full while every slot holds an open page, and pairs once one frees up', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    const relay = new PipRelay(60_000, 256 * 1024, { maxPairings: 1 });
    const { url } = await server({ pairing: true, relay });
    const holder = page(url, 'Biology');
    await until(holder.view, live);
    const waiting = page(url, 'History');
    await until(waiting.view, (view) => view.status === 'full');
    expect(waiting.view()).toMatchObject({ status: 'full' });
    holder.link.stop();
    // stop() closes the tab's stream: the slot is free once the server has seen it close.
    await until(
      () => relay.openStreams,
      (streams) => streams === 0,
    );
    waiting.link.retryNow();
    await until(waiting.view, live);
  });

  it('forgets a stored token the server cannot read and pairs afresh', async ({ expect, onTestFinished }) => {
    const { server, page } = opened({ onTestFinished });
    const { url } = await server({ pairing: true });
    const storage = new MemoryStorage();
    storage.setItem(CHANNEL_STORAGE_KEY, 'not a token!');
    const biology = page(url, 'Biology', storage);
    const view = await until(biology.view, live);
    expect(storage.getItem(CHANNEL_STORAGE_KEY)).not.toBe('not a token!');
    expect(codeOf(view)).toMatch(/^[A-Z2-9]{6}$/);
  });
});

describe.concurrent('a server that does not answer', () => {
  it('shows unreachable with when it will ask again, and pairs when the server comes up', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, closeServer, page } = opened({ onTestFinished });
    const probe = await server({ pairing: true });
    const port = probe.port;
    await closeServer(probe);
    const biology = page(`http://127.0.0.1:${port}`, 'Biology');
    const view = await until(biology.view, (current) => current.status === 'unreachable');
    expect(view).toMatchObject({ status: 'unreachable' });
    if (view.status === 'unreachable') expect(view.retryAt).toBeGreaterThan(Date.now() - 1_000);
    // Still nothing: the wait grows (1 s, then 2 s). A real clock: the page's own first retry, 1 s.
    const later = await until(
      biology.view,
      (current) => current.status === 'unreachable' && current.retryAt - Date.now() > 1_200,
      4_000,
    );
    expect(later.status).toBe('unreachable');
    await server({ pairing: true, port });
    biology.link.retryNow();
    await until(biology.view, live);
  }, 20_000);
});

describe.concurrent('an address that asks to pair too often', () => {
  it('waits the Retry-After of a 429, says so, does not ask before, and pairs once it has waited', async ({
    expect,
    onTestFinished,
  }) => {
    const { server, page } = opened({ onTestFinished });
    // One pairing per address: while the first page holds it with an open stream, a second page
    // from the same address is refused with 429 and Retry-After: 30.
    const relay = new PipRelay(60_000, 256 * 1024, { maxPairingsPerAddress: 1 });
    const { url } = await server({ pairing: true, relay });
    const holder = page(url, 'Biology');
    await until(holder.view, live);
    const pairRequests: number[] = [];
    const timers: Array<{ run: () => void; ms: number }> = [];
    const waiting = page(url, 'History', new MemoryStorage(), {
      fetch: (target, init) => {
        if (target.endsWith('/__pip/pair')) pairRequests.push(Date.now());
        return fetch(target, init);
      },
      setTimer: (run, ms) => {
        const timer = { run, ms };
        timers.push(timer);
        return timer;
      },
      clearTimer: (handle) => {
        const index = timers.indexOf(handle as (typeof timers)[number]);
        if (index >= 0) timers.splice(index, 1);
      },
    });
    const view = await until(waiting.view, (current) => current.status === 'rate_limited');
    if (view.status !== 'rate_limited') throw new Error(view.status);
    expect(view.message).toMatch(/focus pages paired/);
    expect(view.retryAt - Date.now()).toBeGreaterThan(28_000);
    expect(view.retryAt - Date.now()).toBeLessThanOrEqual(30_000);
    // The page asks again when the server said, not at its own 15 s.
    expect(timers.map((timer) => timer.ms)).toEqual([expect.any(Number)]);
    expect(timers[0]?.ms).toBeGreaterThan(29_000);
    // Pressing "Try now" (not shown then) would not ask either.
    waiting.link.retryNow();
    // Time for a request that must not be made: nothing to wait on.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pairRequests).toHaveLength(1);

    holder.link.stop();
    // stop() closes the tab's stream: the slot is free once the server has seen it close.
    await until(
      () => relay.openStreams,
      (streams) => streams === 0,
    );
    timers.shift()?.run(); // the 30 s are over
    await until(waiting.view, live);
    expect(pairRequests).toHaveLength(2);
  });
});

// What one realtime socket can leave behind or pile up, seen from the hub's side: the socket routes
// run against a hub that only records which channels are subscribed, so a test can see every
// subscription the socket added and whether it was removed again. Token verification can be held
// back, to close a socket while its joins are still verifying.
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type * as jwt from '../jwt.ts';
import { signJwt } from '../jwt.ts';
import type { ChannelSubscription, RealtimeHub } from './hub.ts';
import { REALTIME_MAX_BUFFERED_BYTES, realtimeRoutes } from './socket.ts';

const SECRET = 'realtime-socket-limits-secret-of-32+chars';

/** How long each token verification is held back, so a test can close a socket while joins verify. */
const verification = vi.hoisted(() => ({ delayMs: 0 }));

vi.mock('../jwt.ts', async (importOriginal) => {
  const original = await importOriginal<typeof jwt>();
  return {
    ...original,
    verifyJwt: async (...args: Parameters<typeof original.verifyJwt>) => {
      if (verification.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, verification.delayMs));
      return original.verifyJwt(...args);
    },
  };
});

let app: FastifyInstance;
let url: string;
let subscribed: Set<ChannelSubscription>;

beforeEach(async () => {
  subscribed = new Set();
  let lastId = 0;
  const hub = {
    add: (subscription: ChannelSubscription) => subscribed.add(subscription),
    remove: (subscription: ChannelSubscription) => subscribed.delete(subscription),
    assignBindingId: () => (lastId += 1),
    relayBroadcastsTo: () => {},
  } as unknown as RealtimeHub;
  app = Fastify();
  await app.register(websocket);
  await app.register(realtimeRoutes, {
    prefix: '/realtime/v1',
    hub,
    jwtSecret: SECRET,
    sessionLive: async () => true,
    authorize: async () => {
      throw new Error('no private channel here');
    },
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const apiKey = await signJwt({ role: 'anon' }, SECRET);
  url = `${address.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apiKey}&vsn=1.0.0`;
});

afterEach(async () => {
  await app.close();
});

async function open(): Promise<{
  socket: WebSocket;
  frames: { event: string; ref: string | null; payload: { status?: string } }[];
}> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const frames: { event: string; ref: string | null; payload: { status?: string } }[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
  return { socket, frames };
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5_000) throw new Error(`not ${what} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const join = (topic: string, ref: string, accessToken?: string) =>
  JSON.stringify({
    topic,
    event: 'phx_join',
    ref,
    join_ref: ref,
    payload: {
      config: { postgres_changes: [{ event: '*', schema: '*' }] },
      ...(accessToken ? { access_token: accessToken } : {}),
    },
  });

describe('a realtime socket', () => {
  it('leaves no channel subscribed when it closes while its joins are still verifying their tokens', async () => {
    const token = await signJwt(
      { role: 'authenticated', sub: 'student', exp: Math.floor(Date.now() / 1000) + 3600 },
      SECRET,
    );
    const { socket, frames } = await open();
    verification.delayMs = 300;
    try {
      for (let index = 0; index < 10; index += 1) socket.send(join(`realtime:late-${index}`, String(index), token));
      // The server has the joins (they wait on their tokens) when the socket goes.
      socket.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'beat' }));
      await until(() => frames.some((frame) => frame.ref === 'beat'), 'heartbeat answered');
      socket.terminate();
      // Real clock: the joins' token checks (delayed above) finish after the socket is gone; what they do then is the test.
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      verification.delayMs = 0;
    }
    expect(subscribed.size).toBe(0);
  });

  it('keeps its channels while joins and leaves come and go, and drops them all when it closes', async () => {
    const { socket, frames } = await open();
    socket.send(join('realtime:a', '1'));
    socket.send(join('realtime:b', '2'));
    await until(() => frames.filter((frame) => frame.event === 'phx_reply').length === 2, 'joined');
    expect(subscribed.size).toBe(2);
    socket.close();
    await until(() => subscribed.size === 0, 'unsubscribed');
  });

  it(`is dropped, channels and all, once more than ${REALTIME_MAX_BUFFERED_BYTES / 1024 / 1024} MiB wait for a client that does not read`, async () => {
    const { socket, frames } = await open();
    socket.send(join('realtime:slow', '1'));
    await until(() => frames.some((frame) => frame.event === 'phx_reply'), 'joined');
    const [channel] = subscribed;
    // The client stops reading: what the server sends piles up in its socket.
    (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const closed = new Promise<void>((resolve) =>
      app.websocketServer.clients.forEach((server) => server.once('close', () => resolve())),
    );
    const record = { body: 'x'.repeat(1024 * 1024) };
    for (let sent = 0; sent < 2 * REALTIME_MAX_BUFFERED_BYTES && subscribed.size > 0; sent += record.body.length) {
      channel?.send({
        joinRef: '1',
        ref: null,
        topic: 'realtime:slow',
        event: 'postgres_changes',
        payload: { data: { record } },
      });
      // Let the server's socket write what the kernel takes, as between two deliveries.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closed;
    expect(subscribed.size).toBe(0);
  });

  it('is not dropped for the same frames when its client reads them', async () => {
    const { socket, frames } = await open();
    socket.send(join('realtime:reader', '1'));
    await until(() => frames.some((frame) => frame.event === 'phx_reply'), 'joined');
    const [channel] = subscribed;
    const record = { body: 'x'.repeat(1024 * 1024) };
    const count = (2 * REALTIME_MAX_BUFFERED_BYTES) / record.body.length;
    for (let sent = 0; sent < count; sent += 1) {
      channel?.send({
        joinRef: '1',
        ref: null,
        topic: 'realtime:reader',
        event: 'postgres_changes',
        payload: { data: { record } },
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until(
      () => frames.filter((frame) => frame.event === 'postgres_changes').length === count,
      'every frame read',
    );
    expect(socket.readyState).toBe(WebSocket.OPEN);
    expect(subscribed.size).toBe(1);
    socket.close();
  });
});

// Realtime's rate limits, per connection and for the whole server, on the socket routes alone (a
// hub that only records subscriptions, public channels, no database), with limits small enough to
// reach in a test and refilling too slowly to matter during one. Past a connection's own message or
// byte limit the connection is ended; past a server-wide limit only the channel the message was for
// is shut down; a join past the server's joins per second gets Realtime's error reply; heartbeats,
// leaves and token refreshes are never counted. Every answer is Realtime's own.
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { signJwt } from '../src/jwt.ts';
import type { ChannelSubscription, RealtimeHub } from '../src/realtime/hub.ts';
import {
  CLIENT_PRESENCE_RATE_LIMIT,
  REALTIME_LIMITS,
  TokenBucket,
  TOO_MANY_JOINS,
  TOO_MANY_MESSAGES,
  TOO_MANY_PRESENCE_MESSAGES,
  type RealtimeLimits,
} from '../src/realtime/rate-limits.ts';
import { realtimeRoutes } from '../src/realtime/socket.ts';

const SECRET = 'realtime-rate-limits-secret-of-32+chars';
/** A rate no test lasts long enough to see refill a whole message. */
const NO_REFILL = 0.01;
const rate = (burst: number) => ({ perSecond: NO_REFILL, burst });

interface Seen {
  topic: string;
  event: string;
  ref: string | null;
  payload: { status?: string; response?: { reason?: string }; message?: string; payload?: unknown };
}

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The socket routes with `limits` (the rest as localbase runs them), and a way to open sockets. */
async function serve(limits: Partial<RealtimeLimits>) {
  const hub = {
    add: (_subscription: ChannelSubscription) => {},
    remove: (_subscription: ChannelSubscription) => {},
    assignBindingId: () => 1,
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
    limits: { ...REALTIME_LIMITS, ...limits },
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const apiKey = await signJwt({ role: 'anon' }, SECRET);
  return {
    address,
    apiKey,
    async open() {
      const socket = new WebSocket(`${address.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apiKey}&vsn=1.0.0`);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const frames: Seen[] = [];
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Seen));
      const send = (topic: string, event: string, payload: unknown, ref: string) =>
        socket.send(JSON.stringify({ topic, event, payload, ref, join_ref: ref }));
      const join = async (topic: string, ref: string, config: object = { broadcast: { self: false } }) => {
        send(topic, 'phx_join', { config }, ref);
        await until(() => frames.some((frame) => frame.ref === ref && frame.event === 'phx_reply'), `join ${ref}`);
        return frames.find((frame) => frame.ref === ref && frame.event === 'phx_reply') as Seen;
      };
      return { socket, frames, closed, send, join };
    },
  };
}

async function until(done: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > timeoutMs) throw new Error(`not ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

const shutDown = (frames: Seen[], topic: string) =>
  frames.filter((frame) => frame.topic === topic && (frame.event === 'system' || frame.event === 'phx_close'));

const broadcast = (n: number, blob = '') => ({ type: 'broadcast', event: 'note', payload: { n, blob } });

describe('TokenBucket', () => {
  it('lets its burst through at once, then its rate, and never a cost past its burst', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([1, 2, 3, 4].map(() => bucket.take(1, 0))).toEqual([true, true, true, false]);
    expect(bucket.take(1, 50)).toBe(false);
    expect(bucket.take(1, 100)).toBe(true);
    expect(bucket.take(4, 10_000)).toBe(false);
    expect(bucket.take(3, 10_000)).toBe(true);
  });
});

describe('a connection past its own limits', () => {
  it("is ended when it sends more messages than it may: every channel gets Realtime's system error, then the socket closes", async () => {
    const server = await serve({ connectionMessages: rate(5) });
    const flooder = await server.open();
    const listener = await server.open();
    await flooder.join('realtime:room', 'a');
    await flooder.join('realtime:other', 'b');
    await listener.join('realtime:room', 'l');
    for (let n = 1; n <= 8; n += 1) flooder.send('realtime:room', 'broadcast', broadcast(n), `m${n}`);
    expect(await flooder.closed).toBe(1008);
    for (const topic of ['realtime:room', 'realtime:other']) {
      expect(shutDown(flooder.frames, topic).map((frame) => [frame.event, frame.payload])).toEqual([
        [
          'system',
          { extension: 'system', status: 'error', message: TOO_MANY_MESSAGES, channel: topic.replace('realtime:', '') },
        ],
        ['phx_close', {}],
      ]);
    }
    await settle();
    // The five within the limit were relayed, nothing after them.
    expect(
      listener.frames
        .filter((frame) => frame.event === 'broadcast')
        .map((frame) => (frame.payload.payload as { n: number }).n),
    ).toEqual([1, 2, 3, 4, 5]);
    listener.socket.close();
  });

  it('is ended when its frames carry more bytes than it may, before they are read', async () => {
    const server = await serve({ connectionBytes: rate(64 * 1024) });
    const flooder = await server.open();
    const listener = await server.open();
    await flooder.join('realtime:room', 'a');
    await listener.join('realtime:room', 'l');
    flooder.send('realtime:room', 'broadcast', broadcast(1, 'x'.repeat(100 * 1024)), 'big');
    expect(await flooder.closed).toBe(1008);
    expect(shutDown(flooder.frames, 'realtime:room').map((frame) => frame.event)).toEqual(['system', 'phx_close']);
    await settle();
    expect(listener.frames.filter((frame) => frame.event === 'broadcast')).toEqual([]);
    listener.socket.close();
  });

  it('counts neither heartbeats nor leaves nor token refreshes', async () => {
    const server = await serve({ connectionMessages: rate(2), serverMessages: rate(2) });
    const client = await server.open();
    await client.join('realtime:room', 'a');
    for (let n = 0; n < 20; n += 1) {
      client.send('phoenix', 'heartbeat', {}, `h${n}`);
      client.send('realtime:room', 'access_token', { access_token: server.apiKey }, `t${n}`);
      client.send('realtime:unjoined', 'phx_leave', {}, `l${n}`);
    }
    await until(() => client.frames.filter((frame) => frame.ref?.startsWith('h')).length === 20, 'heartbeats');
    await until(() => client.frames.filter((frame) => frame.ref?.startsWith('l')).length === 20, 'leaves');
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    expect(shutDown(client.frames, 'realtime:room')).toEqual([]);
    client.socket.close();
  });
});

describe('the server past its own limits', () => {
  it('drops the message past its messages per second and shuts its channel down; the connection and its other channels stay', async () => {
    const server = await serve({ serverMessages: rate(4) });
    const [ann, ben] = [await server.open(), await server.open()];
    await ann.join('realtime:room', 'a');
    await ann.join('realtime:quiet', 'q');
    await ben.join('realtime:room', 'b');
    for (let n = 1; n <= 4; n += 1) ben.send('realtime:room', 'broadcast', broadcast(n), `b${n}`);
    await until(() => ann.frames.filter((frame) => frame.event === 'broadcast').length === 4, 'four relayed');
    ann.send('realtime:room', 'broadcast', broadcast(5), 'over');
    await until(() => shutDown(ann.frames, 'realtime:room').length === 2, 'the channel shut down');
    expect(shutDown(ann.frames, 'realtime:room')[0]?.payload).toMatchObject({
      status: 'error',
      message: TOO_MANY_MESSAGES,
    });
    await settle();
    expect(ben.frames.filter((frame) => frame.event === 'broadcast')).toEqual([]);
    expect(shutDown(ann.frames, 'realtime:quiet')).toEqual([]);
    ann.send('phoenix', 'heartbeat', {}, 'beat');
    await until(() => ann.frames.some((frame) => frame.ref === 'beat'), 'the heartbeat answered');
    expect(ann.socket.readyState).toBe(WebSocket.OPEN);
    ann.socket.close();
    ben.socket.close();
  });

  it("counts a broadcast's payload once per channel that hears it", async () => {
    // 4 KiB to 3 listeners is 12 KiB on the wire: past the server's 10 KiB, though the frame is 4 KiB.
    const server = await serve({ serverBytes: rate(10 * 1024), connectionBytes: rate(1024 * 1024) });
    const sender = await server.open();
    await sender.join('realtime:room', 's');
    const listeners = [await server.open(), await server.open(), await server.open()];
    for (const [index, listener] of listeners.entries()) await listener.join('realtime:room', `l${index}`);
    sender.send('realtime:room', 'broadcast', broadcast(1, 'x'.repeat(4 * 1024)), 'wide');
    await until(() => shutDown(sender.frames, 'realtime:room').length === 2, 'the channel shut down');
    await settle();
    for (const listener of listeners) {
      expect(listener.frames.filter((frame) => frame.event === 'broadcast')).toEqual([]);
      listener.socket.close();
    }
    expect(sender.socket.readyState).toBe(WebSocket.OPEN);
    sender.socket.close();
  });

  it('ends the connection of a large broadcast past its bytes per second, unread', async () => {
    const server = await serve({ serverBytes: rate(700 * 1024) });
    const [flooder, listener] = [await server.open(), await server.open()];
    await flooder.join('realtime:room', 'f');
    await listener.join('realtime:room', 'l');
    // Each 100 KiB broadcast costs 200 KiB: its frame, and its copy to the listener.
    for (let n = 1; n <= 4; n += 1) {
      flooder.send('realtime:room', 'broadcast', broadcast(n, 'x'.repeat(100 * 1024)), `b${n}`);
    }
    expect(await flooder.closed).toBe(1008);
    expect(shutDown(flooder.frames, 'realtime:room')[0]?.payload.message).toBe(TOO_MANY_MESSAGES);
    await settle();
    expect(listener.frames.filter((frame) => frame.event === 'broadcast')).toHaveLength(3);
    listener.socket.close();
  });

  it('only shuts the channel of a broadcast no budget could ever take (its copies past the burst)', async () => {
    const server = await serve({ serverBytes: rate(1024 * 1024) });
    const sender = await server.open();
    await sender.join('realtime:wide', 's');
    const audience = await Promise.all(Array.from({ length: 5 }, () => server.open()));
    for (const [index, each] of audience.entries()) await each.join('realtime:wide', `a${index}`);
    // 250 KiB to five channels: 1,250 KiB, past the 1,024 KiB the server takes at once.
    sender.send('realtime:wide', 'broadcast', broadcast(1, 'x'.repeat(250 * 1024)), 'wide');
    await until(() => shutDown(sender.frames, 'realtime:wide').length === 2, 'the channel shut down');
    sender.send('phoenix', 'heartbeat', {}, 'beat');
    await until(() => sender.frames.some((frame) => frame.ref === 'beat'), 'the heartbeat answered');
    expect(sender.socket.readyState).toBe(WebSocket.OPEN);
    for (const each of audience) expect(each.frames.filter((frame) => frame.event === 'broadcast')).toEqual([]);
    for (const each of [sender, ...audience]) each.socket.close();
  });

  it("answers a join past its joins per second with Realtime's reply, and keeps the socket", async () => {
    const server = await serve({ serverJoins: rate(2) });
    const client = await server.open();
    expect((await client.join('realtime:one', '1')).payload.status).toBe('ok');
    expect((await client.join('realtime:two', '2')).payload.status).toBe('ok');
    expect((await client.join('realtime:three', '3')).payload).toEqual({
      status: 'error',
      response: { reason: TOO_MANY_JOINS },
    });
    client.send('realtime:one', 'broadcast', broadcast(1), 'still');
    client.send('phoenix', 'heartbeat', {}, 'beat');
    await until(() => client.frames.some((frame) => frame.ref === 'beat'), 'the heartbeat answered');
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.socket.close();
  });

  it("shuts a channel down past its presence limits, the connection's own or the server's, in Realtime's words", async () => {
    const server = await serve({ connectionPresence: rate(2), serverPresence: rate(3) });
    const [ann, ben] = [await server.open(), await server.open()];
    await ann.join('realtime:lobby', 'a', { presence: { key: 'ann' } });
    await ben.join('realtime:lobby', 'b', { presence: { key: 'ben' } });
    const track = (client: typeof ann, n: number) =>
      client.send('realtime:lobby', 'presence', { type: 'presence', event: 'track', payload: { n } }, `t${n}`);
    track(ann, 1);
    track(ann, 2);
    track(ann, 3);
    await until(() => shutDown(ann.frames, 'realtime:lobby').length === 2, "ann's channel shut down");
    expect(shutDown(ann.frames, 'realtime:lobby')[0]?.payload.message).toBe(CLIENT_PRESENCE_RATE_LIMIT);
    // Two of the server's three went to ann; ben's second is past the server's.
    track(ben, 4);
    track(ben, 5);
    await until(() => shutDown(ben.frames, 'realtime:lobby').length === 2, "ben's channel shut down");
    expect(shutDown(ben.frames, 'realtime:lobby')[0]?.payload.message).toBe(TOO_MANY_PRESENCE_MESSAGES);
    ann.socket.close();
    ben.socket.close();
  });

  it('refuses an HTTP broadcast past its limits whole, 429 rate_limited', async () => {
    const server = await serve({ serverMessages: rate(3) });
    const post = (count: number) =>
      fetch(`${server.address}/realtime/v1/api/broadcast`, {
        method: 'POST',
        headers: { apikey: server.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: Array.from({ length: count }, (_, n) => ({ topic: 'room', event: 'note', payload: { n } })),
        }),
      });
    expect((await post(2)).status).toBe(202);
    const refused = await post(2);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'rate_limited',
      message: `${TOO_MANY_MESSAGES}: the server's realtime limits are reached.`,
    });
    expect((await post(1)).status).toBe(202);
  });
});

// Realtime subscriptions for the tests: a channel joined (or its refusal), a postgres_changes
// subscription that resolves once the server confirmed the join, keeps every payload it gets, and
// lets a test await the next one with a deadline, and the barriers a test waits on before it
// asserts that a connection received nothing (more): caughtUpWithSocket, caughtUpWithQueue.
import { randomUUID } from 'node:crypto';
import type {
  RealtimeChannel,
  RealtimePostgresChangesPayload,
  RealtimePostgresInsertPayload,
  SupabaseClient,
} from '@supabase/supabase-js';
import type { Localbase } from '../server.ts';
import { managementRows, type RealtimeConnection } from './clients.ts';

export type InsertPayload = RealtimePostgresInsertPayload<Record<string, unknown>>;
export type ChangePayload = RealtimePostgresChangesPayload<Record<string, unknown>>;

export interface Listener<Payload = InsertPayload> {
  received: Payload[];
  /** The next payload, or undefined when none arrives within timeoutMs. */
  next(timeoutMs: number): Promise<Payload | undefined>;
}

/** Subscribes a channel: its refusal (the server's reason, or the status), or undefined once joined. */
export function joinOutcome(channel: RealtimeChannel): Promise<Error | undefined> {
  return new Promise((resolve) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(undefined);
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') resolve(error ?? new Error(status));
    });
  });
}

/** Subscribes a channel and resolves once the server confirmed the join; a refusal rejects. */
export async function subscribed<Channel extends RealtimeChannel>(channel: Channel): Promise<Channel> {
  const refusal = await joinOutcome(channel);
  if (refusal) throw refusal;
  return channel;
}

export function listenForInserts(client: SupabaseClient, table: string, filter: string): Promise<Listener> {
  return listenForChanges(client, table, filter, 'INSERT') as Promise<Listener>;
}

/** Subscribes to one event (or `*`) of a table; `filter` may be empty for none. */
export async function listenForChanges(
  client: SupabaseClient,
  table: string,
  filter: string,
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*',
): Promise<Listener<ChangePayload>> {
  const received: ChangePayload[] = [];
  const waiters: ((payload: ChangePayload) => void)[] = [];
  const binding = filter === '' ? { event, schema: 'public', table } : { event, schema: 'public', table, filter };
  await subscribed(
    client
      .channel(`${table}-${filter}-${Math.random()}`)
      .on('postgres_changes', binding as { event: '*'; schema: string }, (payload: ChangePayload) => {
        received.push(payload);
        waiters.shift()?.(payload);
      }),
  );
  return {
    received,
    next: (timeoutMs) =>
      new Promise((resolve) => {
        const waiter = (payload: ChangePayload) => {
          clearTimeout(timer);
          resolve(payload);
        };
        // A waiter that timed out leaves the queue, so the next payload goes to the next waiter.
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(undefined);
        }, timeoutMs);
        waiters.push(waiter);
      }),
  };
}

/**
 * Removes every channel and waits until the client has finished disconnecting. realtime-js 2.79
 * disconnects when its last channel goes and ignores connect() until the close completes (up to
 * 100 ms), so a subscribe in that window would be buffered and never sent: a client race, not a
 * server one, which real apps avoid the same way.
 */
export async function removeAllChannelsAndSettle(client: SupabaseClient): Promise<void> {
  await client.removeAllChannels();
  const realtime = client.realtime as unknown as { isDisconnecting?: () => boolean };
  for (let waited = 0; realtime.isDisconnecting?.() && waited < 2000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A supabase-js client or a realtime-js one (clients.ts): what opens channels on one socket. */
type Connection = Pick<RealtimeConnection, 'channel'>;

/** The event of the barriers' markers, on a topic of the connection's own. */
const CAUGHT_UP = 'caught-up';

/** How long a barrier's marker may take: only keeps a lost one from hanging the test. */
const MARKER_DEADLINE_MS = 5000;

/**
 * A connection's channel for the barriers: a public topic nobody else joins, with `broadcast.self`
 * so that its own broadcasts come back to it. Its markers carry a token, each awaited once.
 */
interface BarrierChannel {
  /** The topic as realtime.send names it (without `realtime:`). */
  topic: string;
  channel: RealtimeChannel;
  awaited: Map<string, () => void>;
}

const barrierChannels = new WeakMap<Connection, Promise<BarrierChannel>>();

/**
 * The connection's barrier channel, joined once and kept while it stays joined (a test's
 * removeAllChannels takes it with the others; the next barrier joins a new one). Never removed
 * here: realtime-js 2.79 disconnects a client whose last channel goes.
 */
async function barrierChannel(connection: Connection): Promise<BarrierChannel> {
  const known = await barrierChannels.get(connection)?.catch(() => undefined);
  if (known?.channel.state === 'joined') return known;
  const joining = joinBarrierChannel(connection);
  barrierChannels.set(connection, joining);
  return joining;
}

async function joinBarrierChannel(connection: Connection): Promise<BarrierChannel> {
  const topic = `${CAUGHT_UP}-${randomUUID()}`;
  const awaited = new Map<string, () => void>();
  const channel = connection.channel(topic, { config: { broadcast: { self: true } } });
  channel.on('broadcast', { event: CAUGHT_UP }, ({ payload }: { payload?: { token?: string } }) => {
    const token = payload?.token ?? '';
    awaited.get(token)?.();
    awaited.delete(token);
  });
  await subscribed(channel);
  return { topic, channel, awaited };
}

/** Resolves when the marker with `token` arrives on the barrier channel; rejects after the deadline. */
function markerArrival(barrier: BarrierChannel, token: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      barrier.awaited.delete(token);
      reject(new Error(`${what} did not arrive on ${barrier.topic} within ${MARKER_DEADLINE_MS} ms`));
    }, MARKER_DEADLINE_MS);
    barrier.awaited.set(token, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Resolves once every frame the server had written to this connection's socket before the call has
 * been received and dispatched: the connection broadcasts on its barrier channel, the server writes
 * the message back to the same socket after everything it wrote there before, and one socket
 * delivers its frames in order. For an absence that an answer or another connection's arrival
 * proves decided: the server writes a delivery to every receiver in one synchronous loop (a
 * client's broadcast or a presence diff in a public topic, before it answers the sender; one
 * captured change: topics.ts, hub.ts), so once one receiver has its frame, what the loop wrote for
 * this socket is ahead of the echo. A private topic's deliveries wait for a check after the sender's
 * answer: there only another receiver's arrival proves them written.
 */
export async function caughtUpWithSocket(connection: Connection): Promise<void> {
  const barrier = await barrierChannel(connection);
  const token = randomUUID();
  const echoed = markerArrival(barrier, token, 'the echo of its own broadcast');
  await Promise.all([barrier.channel.send({ type: 'broadcast', event: CAUGHT_UP, payload: { token } }), echoed]);
}

/**
 * Resolves once each connection has received every frame that anything queued before the call (a
 * captured change, a database broadcast: queue.ts) was to bring it: a marker
 * sent with realtime.send to each connection's barrier channel, after them. The hub delivers the
 * queue's items one after the other in the order they were written, each to all its receivers
 * before the next (hub.ts), so the marker reaches a socket after whatever the earlier items wrote
 * to it, in the same drain or a later one.
 */
export async function caughtUpWithQueue(localbase: Localbase, ...connections: Connection[]): Promise<void> {
  const barriers = await Promise.all([...new Set(connections)].map(barrierChannel));
  const token = randomUUID();
  const arrivals = barriers.map((barrier) => markerArrival(barrier, token, 'the marker sent with realtime.send'));
  const sends = barriers.map(
    (barrier) => `realtime.send('{"token": "${token}"}', '${CAUGHT_UP}', '${barrier.topic}', false)`,
  );
  await Promise.all([managementRows(localbase, `select ${sends.join(', ')}`), ...arrivals]);
}

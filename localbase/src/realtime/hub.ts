// The realtime hub: every joined channel's postgres_changes bindings (the one place realtime keeps
// state), and delivery. It reads the queues of captured changes and database broadcasts with this
// server's own cursor (queue.ts), so every server on the database delivers each item to its own
// channels, once; it reads after each write this server serves, when the database says another
// server committed one (wakeups.ts) and on a timer, and records how far it has read (readers.ts).
// An INSERT or UPDATE goes to a channel only if a binding matches it AND the table's SELECT
// policies, under that subscriber's role and claims, let it read the new row as the change captured
// it: RLS decides. A DELETE's row is gone: it goes to a matching channel whose role may read the
// table, with only what the replica identity kept of the old row (capture.ts). The checks of a
// change's subscribers run once per distinct role and claims, in one statement per slice of them
// (visibility.ts), the slices side by side on several connections where the database has them.
// Every delivery also checks that the receiving channel's token still holds (channel-guard.ts): an
// expired token is read from the token, an ended session from that same statement's answer; the
// database's private broadcasts are checked once per drain, for all their receivers.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { VerifiedToken } from '../jwt.ts';
import { tableShape, type Change, type TableShape } from './capture.ts';
import {
  admitChannels,
  expiredMessage,
  liveSessions,
  SESSION_ENDED_MESSAGE,
  type GuardedChannel,
} from './channel-guard.ts';
import type { DatabaseBroadcast } from './database-broadcast.ts';
import { rowMatches, type RowFilter } from './filter.ts';
import type { Frame } from './frames.ts';
import { cursorAtNow, readQueues, START_OF_QUEUE, type Cursor, type QueuedItem } from './queue.ts';
import { heartbeat, READER_HEARTBEAT_MS } from './readers.ts';
import { Wakeups } from './wakeups.ts';
import { roomOf, type TopicMember, type Topics } from './topics.ts';
import { checkSlices, readersVerdicts, SESSION_ENDED_CODE, type Reader } from './visibility.ts';

export interface Binding {
  id: number;
  event: string;
  schema: string;
  table: string | undefined;
  filter: RowFilter | undefined;
}

export interface ChannelSubscription extends GuardedChannel {
  topic: string;
  joinRef: string | null;
  bindings: Binding[];
  token: VerifiedToken;
  /** When the join was accepted: older changes still in the queue are not this channel's. */
  joinedAt: Date;
  /** Sends in the socket's own serializer. */
  send(frame: Frame): void;
}

/** A reader whose session has ended, as the visibility statement answers it. */
const SESSION_ENDED = 'session ended';

/**
 * Read cadence while someone listens (what it catches is written without this server's or the
 * database's word: wakeups.ts); with nobody listening the cursor only moves past what was written.
 */
const ACTIVE_POLL_MS = 200;
const IDLE_POLL_MS = 5000;

export class RealtimeHub {
  private readonly subscriptions = new Set<ChannelSubscription>();
  private readonly shapes = new Map<string, TableShape>();
  private draining: Promise<void> | undefined;
  private pokeAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastBindingId = 0;
  /** Where `realtime.send` messages go: the socket routes' topics, once they are registered. */
  private topics: Topics | undefined;
  /** How far this server has read the queues (queue.ts). */
  private cursor: Cursor = START_OF_QUEUE;
  /** This server among the queues' readers (readers.ts). */
  private readonly reader = randomUUID();
  private registered = false;
  private lastHeartbeat = 0;
  /** Counts subscriptions added, so a cursor moved past unread items never passes a channel's join. */
  private added = 0;

  private readonly wakeups: Wakeups | undefined;
  /** How many connections one change's checks may use at once (checkSlices). */
  private readonly checkConnections: number;

  /**
   * Where the database has sessions to spare (not PGlite): `options.listen`, a new client on it, to
   * hear at once of changes other servers commit (wakeups.ts); `options.checkConnections`, how many
   * of the pool's connections one change's read checks may run on side by side (1 if unset).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly log: (error: unknown) => void,
    options: { listen?: () => pg.Client; checkConnections?: number } = {},
  ) {
    this.wakeups = options.listen
      ? new Wakeups({ connect: options.listen, onWake: () => void this.poke(), log })
      : undefined;
    this.checkConnections = Math.max(1, options.checkConnections ?? 1);
  }

  /**
   * Starts reading from what is committed now; answers once the database's wakeups are heard (or
   * their first attempt failed). Before the server takes its first channel: a channel that joins
   * later needs nothing written before.
   */
  async start(): Promise<void> {
    await this.readFromNow();
    this.schedule();
    await this.wakeups?.start();
  }

  /**
   * Moves this server's cursor past everything committed so far, unread: a hub that is not started
   * reads from the start of the queues (queue.ts).
   */
  async readFromNow(): Promise<void> {
    this.cursor = await cursorAtNow(this.pool);
  }

  stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    return this.wakeups?.stop() ?? Promise.resolve();
  }

  add(subscription: ChannelSubscription): void {
    this.subscriptions.add(subscription);
    this.added += 1;
    this.schedule();
  }

  remove(subscription: ChannelSubscription): void {
    this.subscriptions.delete(subscription);
  }

  /** The topics the database's broadcasts (realtime.send) are relayed to. */
  relayBroadcastsTo(topics: Topics): void {
    this.topics = topics;
  }

  /** Binding ids are unique per server, so a frame's `ids` never names another channel's binding. */
  assignBindingId(): number {
    this.lastBindingId += 1;
    return this.lastBindingId;
  }

  /** Forget cached table shapes (after DDL). */
  forgetShapes(): void {
    this.shapes.clear();
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const delay = this.subscriptions.size > 0 ? ACTIVE_POLL_MS : IDLE_POLL_MS;
    this.timer = setTimeout(() => void this.drain(), delay);
    this.timer.unref();
  }

  /**
   * A write committed (on this server, or on another: wakeups.ts): deliver its changes now if anyone
   * listens. With nobody listening the idle timer moves the cursor on, so writes pay no extra query.
   */
  poke(): Promise<void> {
    return this.subscriptions.size > 0 ? this.drain() : Promise.resolve();
  }

  /**
   * Reads the queues now (coalescing overlapping calls) and delivers what they held.
   */
  private drain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.draining) {
      this.pokeAgain = true;
      return this.draining;
    }
    this.draining = this.readAndDeliver()
      .catch((error: unknown) => this.log(error))
      .finally(() => {
        this.draining = undefined;
        if (this.pokeAgain) {
          this.pokeAgain = false;
          void this.drain();
        } else {
          this.schedule();
        }
      });
    return this.draining;
  }

  private async readAndDeliver(): Promise<void> {
    if (this.subscriptions.size === 0) {
      // Nobody to deliver to: the cursor moves past what was written, unread, unless a channel
      // joined meanwhile (its changes may be among them).
      const added = this.added;
      const now = await cursorAtNow(this.pool);
      if (added === this.added && this.subscriptions.size === 0) this.cursor = now;
    } else {
      do {
        const { items, cursor } = await readQueues(this.pool, this.cursor);
        this.cursor = cursor;
        await this.deliverAll(items);
      } while (this.cursor.window && !this.closed);
    }
    await this.recordReading();
  }

  private async deliverAll(queued: readonly QueuedItem[]): Promise<void> {
    if (queued.length === 0 || this.subscriptions.size === 0) return;
    const admitted = await this.admitPrivateReceivers(queued);
    for (const item of queued) {
      if (item.kind === 'change') await this.deliver(item.change);
      else this.relay(item.broadcast, admitted);
    }
  }

  /** Every READER_HEARTBEAT_MS: how far this server has read, so that what all have read is removed. */
  private async recordReading(): Promise<void> {
    const now = Date.now();
    if (now - this.lastHeartbeat < READER_HEARTBEAT_MS) return;
    this.lastHeartbeat = now;
    const { registered } = await heartbeat(this.pool, this.reader, this.cursor.done);
    // Registered again after it was dropped for silence: items only it had not read may be gone.
    if (registered && this.registered) {
      this.log(
        new Error(
          'realtime: this server was not heard from for a while; changes written meanwhile may not have reached its channels',
        ),
      );
    }
    this.registered = true;
  }

  /**
   * Whether the tokens of the channels that would receive the drained database broadcasts still
   * hold: the private ones joined to a private message's topic before it was sent, for all the
   * drained messages in one check (channel-guard.ts). A failed check admits none of them.
   */
  private async admitPrivateReceivers(queued: readonly QueuedItem[]): Promise<ReadonlySet<TopicMember>> {
    const receivers = new Set<TopicMember>();
    for (const item of queued) {
      if (item.kind !== 'broadcast' || !item.broadcast.private || !this.topics) continue;
      for (const member of this.topics.membersOf(roomOf(`realtime:${item.broadcast.topic}`, true))) {
        if (member.receives.broadcast && item.broadcast.sent_at >= member.joinedAt) receivers.add(member);
      }
    }
    if (receivers.size === 0) return receivers;
    try {
      return await this.admit(receivers);
    } catch (error) {
      this.log(error);
      return new Set();
    }
  }

  /** Closes the channels whose token no longer holds (channel-guard.ts); answers the others. */
  admit<Channel extends GuardedChannel>(channels: Iterable<Channel>): Promise<Set<Channel>> {
    return admitChannels(channels, (sessions) => liveSessions(this.pool, sessions));
  }

  /**
   * A database broadcast, to the topic's channels joined before it was sent: the public ones, or
   * for a private message the private ones authorized to read it whose token still holds.
   */
  private relay(broadcast: DatabaseBroadcast, admitted: ReadonlySet<TopicMember>): void {
    this.topics?.broadcastChecked(
      roomOf(`realtime:${broadcast.topic}`, broadcast.private),
      { type: 'broadcast', event: broadcast.event, payload: broadcast.payload },
      broadcast.sent_at,
      admitted,
    );
  }

  private async shapeOf(change: Change): Promise<TableShape> {
    const key = `${change.schema_name}.${change.table_name}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = await tableShape(this.pool, change.schema_name, change.table_name);
      this.shapes.set(key, shape);
    }
    return shape;
  }

  private async deliver(change: Change): Promise<void> {
    const shape = await this.shapeOf(change);
    const readers = new Readers();
    const deliveries: { subscription: ChannelSubscription; ids: number[]; reader: number }[] = [];
    const now = Date.now();
    for (const subscription of [...this.subscriptions]) {
      if (change.committed_at < subscription.joinedAt) continue;
      const ids = subscription.bindings
        .filter((binding) => bindingMatches(binding, change))
        .map((binding) => binding.id);
      if (ids.length === 0) continue;
      // A token past its exp ends the channel, as hosted Realtime ends it (channel-guard.ts).
      const expired = expiredMessage(subscription.token, now);
      if (expired !== undefined) {
        subscription.close(expired);
        continue;
      }
      deliveries.push({ subscription, ids, reader: readers.indexOf(subscription.token) });
    }
    if (deliveries.length === 0 || shape.primaryKey.length === 0) return;
    const verdicts = await this.decide(change, shape, readers.list);
    // One object for every subscriber: the codecs serialize it once (frames.ts), only `ids` differs.
    const data = {
      schema: change.schema_name,
      table: change.table_name,
      commit_timestamp: change.committed_at.toISOString(),
      type: change.event,
      columns: shape.columns,
      ...changeRecords(change),
      errors: null,
    };
    for (const { subscription, ids, reader } of deliveries) {
      // The reader's session ended (a logout, a ban): its channels end, in the same statement's answer.
      if (verdicts[reader] === SESSION_ENDED) subscription.close(SESSION_ENDED_MESSAGE);
      if (verdicts[reader] !== true) continue;
      subscription.send({
        joinRef: subscription.joinRef,
        ref: null,
        topic: subscription.topic,
        event: 'postgres_changes',
        payload: { ids, data },
      });
    }
  }

  /**
   * Whether each reader may see the row: the table's SELECT policies on the captured row, under its
   * role and claims, as for the Data API, one statement per slice of readers (visibility.ts,
   * checkSlices), the slices on connections of their own side by side.
   */
  private async decide(
    change: Change,
    shape: TableShape,
    readers: readonly Reader[],
  ): Promise<(boolean | typeof SESSION_ENDED)[]> {
    const slices = checkSlices(readers.length, this.checkConnections);
    const decided: (boolean | typeof SESSION_ENDED)[][] = [];
    // PGlite has one session: its slices run one after the other, so that other requests get it
    // between them. On PostgreSQL up to checkConnections of them run at once.
    for (let first = 0; first < slices.length; first += this.checkConnections) {
      const running = slices
        .slice(first, first + this.checkConnections)
        .map(({ start, end }) => this.decideSlice(change, shape, readers.slice(start, end)));
      decided.push(...(await Promise.all(running)));
    }
    return decided.flat();
  }

  private async decideSlice(
    change: Change,
    shape: TableShape,
    slice: readonly Reader[],
  ): Promise<(boolean | typeof SESSION_ENDED)[]> {
    try {
      return (await readersVerdicts(this.pool, change, shape, slice)).map((verdict) => {
        // No grant, an ended session, a dropped table or column: this reader may not see the
        // row, which is an answer, not a failure. Anything else is logged before it is taken as no.
        if (verdict.errorCode !== null && !DENIAL_SQLSTATES.has(verdict.errorCode)) {
          this.log(
            Object.assign(new Error(verdict.errorMessage ?? 'realtime read check failed'), {
              code: verdict.errorCode,
            }),
          );
        }
        return verdict.errorCode === SESSION_ENDED_CODE ? SESSION_ENDED : verdict.visible;
      });
    } catch (error) {
      if (!isExpectedDenial(error)) this.log(error);
      return slice.map(() => false);
    }
  }
}

/** The distinct (role, claims) of a change's subscribers, each asked once. */
class Readers {
  readonly list: Reader[] = [];
  private readonly indexes = new Map<string, number>();

  indexOf(token: VerifiedToken): number {
    const key = readerKey(token);
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = this.list.push({ role: token.role, claims: token.claims }) - 1;
      this.indexes.set(key, index);
    }
    return index;
  }
}

/** Tokens are kept by their channels and replaced on refresh, so each one's key is computed once. */
const readerKeys = new WeakMap<VerifiedToken, string>();

function readerKey(token: VerifiedToken): string {
  let key = readerKeys.get(token);
  if (key === undefined) {
    key = JSON.stringify([token.role, token.claims]);
    readerKeys.set(token, key);
  }
  return key;
}

/** Errors that mean "this subscriber may not read the row" rather than that something broke. */
const DENIAL_SQLSTATES = new Set(['42501', '42P01', '42703', SESSION_ENDED_CODE]);

function isExpectedDenial(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DENIAL_SQLSTATES.has(code);
}

function bindingMatches(binding: Binding, change: Change): boolean {
  if (binding.event !== '*' && binding.event.toUpperCase() !== change.event) return false;
  if (binding.schema !== '*' && binding.schema !== change.schema_name) return false;
  if (binding.table !== undefined && binding.table !== '*' && binding.table !== change.table_name) return false;
  // A DELETE is matched on what its old record holds: a filter on a column the replica identity
  // leaves out matches nothing, as in Supabase Realtime.
  return rowMatches(binding.filter, (change.event === 'DELETE' ? change.old_record : change.record) ?? {});
}

/** The records Realtime sends per event: the new row, the old one as far as it was kept, or both. */
function changeRecords(change: Change): { record?: Record<string, unknown>; old_record?: Record<string, unknown> } {
  switch (change.event) {
    case 'INSERT':
      return { record: change.record ?? {} };
    case 'UPDATE':
      return { record: change.record ?? {}, old_record: change.old_record ?? {} };
    case 'DELETE':
      return { old_record: change.old_record ?? {} };
  }
}

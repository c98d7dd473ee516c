// The timer relay in this process's memory (a server alone, SHARED_STATE=local; timer-relay.ts):
// the latest snapshot and the open /__pip/events streams of each channel. This is the one place
// that relay keeps anything; a district's (shared-pip-relay.ts) holds its streams in PipChannels
// too and the rest in the shared state. Without pairing there is one shared channel
// (PIP_PAIRING=off); with pairing on, the default, every focus page gets its own (see
// pip-pairing.ts). Writes to a stream never wait: a client whose socket buffer is over the limit
// is dropped, so a slow tab cannot hold up or bloat the others.
//
// A channel also tells its focus pages whether a phone is following it: the first phone request
// after a quiet spell sends `phone {present: true}`, and PHONE_GONE_AFTER_MS without one sends
// `phone {present: false}`. A phone polls at least every 5 s while it is open (3 s for the remote,
// 5 s for the Android overlay's watch), so a longer silence means it was closed, locked or left.
import type { ServerResponse } from 'node:http';
import { PipPairings, type PipPairingsOptions } from './pip-pairing.ts';
import type { PairOutcome, PhoneReach, RelayChannel, StoredSnapshot, TimerRelay } from './timer-relay.ts';
import type { PipAction } from '#contracts/phone-actions.ts';
import { formatRelayEvent, type RelayedAction } from '#contracts/relay-events.ts';
import { idleSnapshot, type TimerSnapshot, type TimerSnapshotInput } from '#contracts/timer-snapshot.ts';

export type { StoredSnapshot } from './timer-relay.ts';

export const SSE_PING_INTERVAL_MS = 15_000;
export const SLOW_CLIENT_BUFFER_LIMIT = 256 * 1024;
export const PHONE_GONE_AFTER_MS = 12_000;
/**
 * How long GET /api/pip/state?after= holds a phone's request while the snapshot is the one it has:
 * a newer one is answered the moment the page posts it, so Start reaches the phone at once. Under
 * the phone's 4 s request timeout, and well under PHONE_GONE_AFTER_MS.
 */
export const LONG_POLL_MS = 2_500;
/** Phone requests one channel holds at once; past it a request is answered at once (a plain poll). */
export const MAX_WAITING_PHONES = 64;
/** Open /__pip/events streams one client address may hold (with pairing on or off). */
export const MAX_EVENT_STREAMS_PER_ADDRESS = 16;

/** One snapshot and the streams that listen for its actions. */
export class PipChannel implements RelayChannel {
  private snapshot: TimerSnapshot = idleSnapshot;
  private readonly streams = new Set<ServerResponse>();
  private phoneTimer: NodeJS.Timeout | undefined;
  /** Phones waiting for a snapshot newer than theirs (the long poll). */
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly bufferLimit: number,
    private readonly nextActionId: () => number,
    private readonly phoneGoneAfterMs = PHONE_GONE_AFTER_MS,
  ) {}

  /** A phone asked for this channel within the last phoneGoneAfterMs. */
  get phonePresent(): boolean {
    return this.phoneTimer !== undefined;
  }

  /** A phone's request reached this channel: tell the pages when one arrives, and later when it leaves. */
  notePhone(): void {
    const arrived = this.phoneTimer === undefined;
    clearTimeout(this.phoneTimer);
    this.phoneTimer = setTimeout(() => {
      this.phoneTimer = undefined;
      this.broadcast(formatRelayEvent('phone', { present: false, at: Date.now() }));
    }, this.phoneGoneAfterMs);
    this.phoneTimer.unref();
    if (arrived) this.broadcast(formatRelayEvent('phone', { present: true, at: Date.now() }));
  }

  get openStreams(): number {
    return this.streams.size;
  }

  latestSnapshot(): TimerSnapshot {
    return this.snapshot;
  }

  storeSnapshot(input: TimerSnapshotInput): StoredSnapshot {
    const { updatedAt: _clientClock, ...fields } = input;
    const stored = { ...fields, updatedAt: Date.now() };
    this.snapshot = stored;
    this.wakeWaiting();
    return stored;
  }

  /**
   * Takes a snapshot stamped elsewhere (the shared relay reads it from the database), unless the one
   * held is as new, and wakes the phones waiting for a newer one.
   */
  showSnapshot(snapshot: TimerSnapshot): void {
    if ((snapshot.updatedAt ?? 0) <= (this.snapshot.updatedAt ?? 0)) return;
    this.snapshot = snapshot;
    this.wakeWaiting();
  }

  /**
   * Resolves once the snapshot is newer than the one stamped `knownUpdatedAt` (0: the idle one),
   * at once when it already is, or after waitMs; also when the channel closes.
   */
  waitForNewer(knownUpdatedAt: number, waitMs: number): Promise<void> {
    if ((this.snapshot.updatedAt ?? 0) !== knownUpdatedAt || this.waiting.size >= MAX_WAITING_PHONES)
      return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      timer.unref();
      this.waiting.add(done);
    });
  }

  private wakeWaiting(): void {
    for (const done of [...this.waiting]) done();
  }

  subscribe(stream: ServerResponse, onClose: () => void = () => {}): void {
    this.streams.add(stream);
    stream.on('close', () => {
      this.streams.delete(stream);
      onClose();
    });
    this.write(stream, formatRelayEvent('hello', { snapshot: this.snapshot, at: Date.now() }));
    if (this.phonePresent) this.write(stream, formatRelayEvent('phone', { present: true, at: Date.now() }));
  }

  /** Relays one action to every open stream; returns the event and how many streams took it. */
  relayPipAction(action: PipAction): { event: RelayedAction; delivered: number } {
    const event: RelayedAction = { id: this.nextActionId(), ...action, at: Date.now() };
    return { event, delivered: this.broadcast(formatRelayEvent('pip-action', event)) };
  }

  broadcast(chunk: string): number {
    let delivered = 0;
    for (const stream of this.streams) if (this.write(stream, chunk)) delivered++;
    return delivered;
  }

  close(): void {
    clearTimeout(this.phoneTimer);
    this.phoneTimer = undefined;
    this.wakeWaiting();
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private write(stream: ServerResponse, chunk: string): boolean {
    if (stream.destroyed || stream.writableEnded) {
      this.streams.delete(stream);
      return false;
    }
    if (stream.writableLength > this.bufferLimit) {
      this.streams.delete(stream);
      stream.destroy();
      return false;
    }
    stream.write(chunk);
    return true;
  }
}

export class PipRelay implements TimerRelay {
  /** The channel everyone shares when pairing is off. */
  readonly shared: PipChannel;
  /** Per-page channels, used only when pairing is on. */
  readonly pairings: PipPairings<PipChannel>;
  private actionCounter = 1;
  private readonly pingTimer: NodeJS.Timeout;
  private readonly streamsByAddress = new Map<string, number>();

  constructor(
    pingIntervalMs = SSE_PING_INTERVAL_MS,
    bufferLimit = SLOW_CLIENT_BUFFER_LIMIT,
    pairingOptions: Partial<PipPairingsOptions> = {},
    phoneGoneAfterMs = PHONE_GONE_AFTER_MS,
    readonly maxStreamsPerAddress = MAX_EVENT_STREAMS_PER_ADDRESS,
  ) {
    const nextActionId = () => this.actionCounter++;
    this.shared = new PipChannel(bufferLimit, nextActionId, phoneGoneAfterMs);
    this.pairings = new PipPairings(() => new PipChannel(bufferLimit, nextActionId, phoneGoneAfterMs), pairingOptions);
    this.pingTimer = setInterval(() => {
      const ping = `: ping ${Date.now()}\n\n`;
      this.shared.broadcast(ping);
      for (const channel of this.pairings.channels()) channel.broadcast(ping);
      this.pairings.forgetIdle();
    }, pingIntervalMs);
    this.pingTimer.unref();
  }

  get openStreams(): number {
    let total = this.shared.openStreams;
    for (const channel of this.pairings.channels()) total += channel.openStreams;
    return total;
  }

  get idleTimeoutMs(): number {
    return this.pairings.idleTimeoutMs;
  }

  latestSnapshot(): TimerSnapshot {
    return this.shared.latestSnapshot();
  }

  pair(existingToken: string | undefined, owner: string): PairOutcome {
    const paired = this.pairings.pair(existingToken, owner);
    if (!('refused' in paired))
      return { code: paired.pairing.code, token: paired.pairing.token, reused: paired.reused };
    return paired.refused === 'server_full' ? paired : { ...paired, held: this.pairings.heldBy(owner) };
  }

  pageChannel(token: string): PipChannel | undefined {
    return this.pairings.byChannelToken(token)?.channel;
  }

  pageLeft(token: string): void {
    const pairing = this.pairings.byChannelToken(token);
    if (pairing) this.pairings.touch(pairing);
  }

  phoneAttempt(rawCode: string | undefined, client: string): PhoneReach {
    const attempt = this.pairings.phoneAttempt(rawCode, client);
    return 'pairing' in attempt ? { channel: attempt.pairing.channel } : attempt;
  }

  /**
   * Takes one of an address's event-stream places; false when it holds maxStreamsPerAddress
   * already. Every place taken is given back by the returned release, once, when the stream closes.
   */
  admitStream(address: string): (() => void) | undefined {
    const open = this.streamsByAddress.get(address) ?? 0;
    if (open >= this.maxStreamsPerAddress) return undefined;
    this.streamsByAddress.set(address, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.streamsByAddress.get(address) ?? 1) - 1;
      if (left > 0) this.streamsByAddress.set(address, left);
      else this.streamsByAddress.delete(address);
    };
  }

  /** Open event streams of one client address. */
  streamsOf(address: string): number {
    return this.streamsByAddress.get(address) ?? 0;
  }

  storeSnapshot(input: TimerSnapshotInput): StoredSnapshot {
    return this.shared.storeSnapshot(input);
  }

  subscribe(stream: ServerResponse): void {
    this.shared.subscribe(stream);
  }

  relayPipAction(action: PipAction): { event: RelayedAction; delivered: number } {
    return this.shared.relayPipAction(action);
  }

  close(): void {
    clearInterval(this.pingTimer);
    this.shared.close();
    this.pairings.close();
  }
}

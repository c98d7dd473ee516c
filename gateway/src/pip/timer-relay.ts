// The timer relay as its routes (pip-routes.ts) use it, whichever server keeps its state. Two
// implementations: PipRelay (pip-relay.ts) keeps everything in this process's memory, for a server
// alone (SHARED_STATE=local); SharedPipRelay (shared-pip-relay.ts) keeps pairings, snapshots and
// actions in the district's shared state, so a phone and its focus page may reach different servers.
// The in-memory one answers at once and the shared one after a database round trip: hence Awaitable.
import type { ServerResponse } from 'node:http';
import type { PipAction } from '#contracts/phone-actions.ts';
import type { RelayedAction } from '#contracts/relay-events.ts';
import type { TimerSnapshot, TimerSnapshotInput } from '#contracts/timer-snapshot.ts';

export type Awaitable<T> = T | Promise<T>;

/** A snapshot the server received: stamped with its own clock. */
export type StoredSnapshot = TimerSnapshot & { updatedAt: number };

/** One focus page's channel (or the one shared channel of PIP_PAIRING=off). */
export interface RelayChannel {
  latestSnapshot(): Awaitable<TimerSnapshot>;
  /** Stores the page's post, stamped by the server (its own updatedAt is ignored). */
  storeSnapshot(input: TimerSnapshotInput): Awaitable<StoredSnapshot>;
  /** Resolves once a snapshot newer than `knownUpdatedAt` (0: the idle one) is there, or after waitMs. */
  waitForNewer(knownUpdatedAt: number, waitMs: number): Promise<void>;
  /** Relays one action to the page's event streams; `delivered` counts the open ones. */
  relayPipAction(action: PipAction): Awaitable<{ event: RelayedAction; delivered: number }>;
  /** A phone's request reached the channel: its pages hear that a phone follows them. */
  notePhone(): void;
  /** Takes an event stream: `hello` with the latest snapshot, then the channel's events. */
  subscribe(stream: ServerResponse, onClose?: () => void): Awaitable<void>;
}

/** POST /__pip/pair: the page's code and token, or why there is no slot for it. */
export type PairOutcome =
  | { code: string; token: string; reused: boolean }
  /** Every slot holds a page with an open stream. */
  | { refused: 'server_full' }
  /** Every slot of this address holds a page with an open stream; `held` of them. */
  | { refused: 'address_full'; retryAfterMs: number; held: number };

/** What a phone's code got it: its page's channel, or why not. */
export type PhoneReach =
  | { channel: RelayChannel }
  | { refused: 'missing' }
  | { refused: 'unknown' }
  /** address: this address sent too many wrong codes; server: all addresses together did. */
  | { refused: 'address_locked' | 'server_paused'; retryAfterMs: number };

export interface TimerRelay {
  /** The one channel everyone shares when pairing is off. */
  readonly shared: RelayChannel;
  /** Open /__pip/events streams one client address may hold on this server. */
  readonly maxStreamsPerAddress: number;
  /** Event streams open on this server. */
  readonly openStreams: number;
  /** A pairing whose page has no open stream and posted nothing for this long is forgotten. */
  readonly idleTimeoutMs: number;
  /** Pairs the page at `owner` (its address); a token still live (after a reload) keeps its pairing and code. */
  pair(existingToken: string | undefined, owner: string): Awaitable<PairOutcome>;
  /** The channel of a paired page's token, marked active; undefined when it is not (or no longer) paired. */
  pageChannel(token: string): Awaitable<RelayChannel | undefined>;
  /** An event stream of the page closed: its idle time counts from now. */
  pageLeft(token: string): void;
  /** A phone at `client` names `rawCode`; wrong codes are counted per address and for all addresses. */
  phoneAttempt(rawCode: string | undefined, client: string): Awaitable<PhoneReach>;
  /** Takes one of an address's event-stream places; its release gives it back, once. */
  admitStream(address: string): (() => void) | undefined;
  close(): void;
}

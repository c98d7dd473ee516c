// The timer relay of a district (SHARED_STATE=database or backend, docs/deployment.md): pairings,
// each page's latest snapshot and the phones' actions are kept in the shared state (the
// gateway_relay_* functions), so a phone paired through one server drives a focus page whose event
// stream another server holds, and reads what the page posted there.
//
// What cannot leave a process stays in it: the event streams and the phones waiting for a newer
// snapshot, in one PipChannel per channel id that this server holds streams or waiting phones for.
// Servers tell each other with events that name ids only (shared-state.ts):
//   - relay-action: a phone's action was stored; servers holding the page's streams read and relay it;
//   - relay-snapshot: a page posted; servers with phones waiting on that channel read it;
//   - relay-phone: a phone reached the channel; servers holding its streams tell the pages.
// NOTIFY (or a Realtime broadcast) takes milliseconds, so an action reaches a page on another server
// about as fast as one on its own. After the event stream was interrupted (resync), every channel
// held here reads what it may have missed.
//
// Codes are derived from the channel token (pairingCodeOfToken), so a page that pairs again after a reload
// gets its code back from any server, though the database keeps only digests of both.
// With PIP_PAIRING=off the one open channel stays in each server's memory: that mode is for a
// single-user machine, never a district.
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  sharedKey,
  type Resync,
  type SharedEvent,
  type SharedState,
  type SharedStateLog,
} from '../district/shared-state.ts';
import { GatewayError } from '../http-errors.ts';
import {
  ADDRESS_FULL_RETRY_AFTER_MS,
  DEFAULT_PAIRING_OPTIONS,
  guessingKey,
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
  type PipPairingsOptions,
} from './pip-pairing.ts';
import {
  MAX_EVENT_STREAMS_PER_ADDRESS,
  PHONE_GONE_AFTER_MS,
  PipChannel,
  PipRelay,
  SLOW_CLIENT_BUFFER_LIMIT,
  SSE_PING_INTERVAL_MS,
} from './pip-relay.ts';
import { actionAnswer, actionsOf, idOrNull, pairAnswer, phoneAnswer, snapshotOf } from './shared-relay-answers.ts';
import type { PairOutcome, PhoneReach, RelayChannel, StoredSnapshot, TimerRelay } from './timer-relay.ts';
import type { PipAction } from '#contracts/phone-actions.ts';
import { formatRelayEvent, type RelayedAction } from '#contracts/relay-events.ts';
import type { TimerSnapshot, TimerSnapshotInput } from '#contracts/timer-snapshot.ts';

/** Fresh tokens drawn when each one's code is taken by a live pairing (1 in 887 million per live code). */
const CODE_DRAWS = 8;
/** Action ids a channel held here remembers as relayed, so an action named twice reaches its pages once. */
const RELAYED_IDS_KEPT = 64;

export type SharedPairingOptions = Omit<PipPairingsOptions, 'now'>;

export interface SharedPipRelayOptions {
  log: SharedStateLog;
  /** Pings the streams, and renews this server's report of them, this often. */
  pingIntervalMs?: number;
  bufferLimit?: number;
  phoneGoneAfterMs?: number;
  maxStreamsPerAddress?: number;
  pairing?: Partial<SharedPairingOptions>;
}

/** A page's 6-character code, derived from its channel token: the same on every server, for as long as the token. */
export function pairingCodeOfToken(token: string): string {
  let value = createHash('sha256').update(`pairing code\0${token}`, 'utf8').digest().readBigUInt64BE(0);
  let code = '';
  const base = BigInt(PAIRING_CODE_ALPHABET.length);
  for (let index = 0; index < PAIRING_CODE_LENGTH; index++) {
    code += PAIRING_CODE_ALPHABET[Number(value % base)];
    value /= base;
  }
  return code;
}

const tokenKey = (token: string) => sharedKey('relay-channel', token);

function channelGone(): GatewayError {
  return new GatewayError(
    401,
    'pairing_channel_unknown',
    'This channel is not paired (it expired or the server restarted): pair again with POST /__pip/pair.',
  );
}

/** A channel this server holds streams or waiting phones for. */
interface HeldChannel {
  channel: PipChannel;
  /** Open streams and waiting phones: the entry goes when none is left. */
  holds: number;
  /** The latest action ids relayed to its streams. */
  relayed: Set<number>;
  highestRelayed: number;
}

export class SharedPipRelay implements TimerRelay {
  private readonly local: PipRelay;
  private readonly held = new Map<number, HeldChannel>();
  /** When this server last told the district that a phone reached a channel. */
  private readonly phoneNoticedAt = new Map<number, number>();
  private readonly pairing: SharedPairingOptions;
  private readonly bufferLimit: number;
  private readonly phoneGoneAfterMs: number;
  private readonly reportValidMs: number;
  /** Stream reports go out one after the other, so the last one sent is the count that holds. */
  private reports: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private readonly stopListening: () => void;
  private closed = false;

  constructor(
    private readonly state: SharedState,
    private readonly options: SharedPipRelayOptions,
  ) {
    const pingIntervalMs = options.pingIntervalMs ?? SSE_PING_INTERVAL_MS;
    this.bufferLimit = options.bufferLimit ?? SLOW_CLIENT_BUFFER_LIMIT;
    this.phoneGoneAfterMs = options.phoneGoneAfterMs ?? PHONE_GONE_AFTER_MS;
    const { now: _clock, ...defaults } = DEFAULT_PAIRING_OPTIONS;
    this.pairing = { ...defaults, ...options.pairing };
    // A report outlives a few missed renewals; a server that died stops counting soon after.
    this.reportValidMs = Math.min(3_600_000, Math.max(1_000, 4 * pingIntervalMs));
    // The open channel of PIP_PAIRING=off, the event-stream places per address and their pings.
    this.local = new PipRelay(
      pingIntervalMs,
      this.bufferLimit,
      {},
      this.phoneGoneAfterMs,
      options.maxStreamsPerAddress ?? MAX_EVENT_STREAMS_PER_ADDRESS,
    );
    this.stopListening = state.subscribe((event) => this.heard(event));
    this.timer = setInterval(() => this.renew(), pingIntervalMs);
    this.timer.unref();
  }

  get shared(): PipChannel {
    return this.local.shared;
  }

  get maxStreamsPerAddress(): number {
    return this.local.maxStreamsPerAddress;
  }

  get openStreams(): number {
    let total = this.local.openStreams;
    for (const { channel } of this.held.values()) total += channel.openStreams;
    return total;
  }

  get idleTimeoutMs(): number {
    return this.pairing.idleTimeoutMs;
  }

  admitStream(address: string): (() => void) | undefined {
    return this.local.admitStream(address);
  }

  async pair(existingToken: string | undefined, owner: string): Promise<PairOutcome> {
    if (existingToken && (await this.pageId(existingToken)) !== null)
      return { code: pairingCodeOfToken(existingToken), token: existingToken, reused: true };
    for (let draw = 0; draw < CODE_DRAWS; draw++) {
      const token = randomBytes(24).toString('base64url');
      const code = pairingCodeOfToken(token);
      const answer = pairAnswer.parse(
        await this.state.call('gateway_relay_pair', {
          p_token_key: tokenKey(token),
          p_code_key: sharedKey('relay-code', code),
          p_owner_key: sharedKey('relay-owner', owner),
          p_idle_ms: this.pairing.idleTimeoutMs,
          p_max_pairings: this.pairing.maxPairings,
          p_max_per_owner: this.pairing.maxPairingsPerAddress,
        }),
      );
      if ('channel' in answer) return { code, token, reused: false };
      if (answer.refused === 'address_full')
        return { refused: 'address_full', retryAfterMs: ADDRESS_FULL_RETRY_AFTER_MS, held: answer.held };
      if (answer.refused === 'server_full') return { refused: 'server_full' };
    }
    throw new Error(`no free pairing code in ${CODE_DRAWS} draws`);
  }

  async pageChannel(token: string): Promise<RelayChannel | undefined> {
    const id = await this.pageId(token);
    return id === null ? undefined : this.channelOf(id);
  }

  pageLeft(): void {
    // Nothing to do here: the stream report sent when the stream closed marked the channel active.
  }

  async phoneAttempt(rawCode: string | undefined, client: string): Promise<PhoneReach> {
    // Without a code there is nothing to count or look up (an address locked out for wrong codes
    // learns only that a code is needed, which it knows).
    if (rawCode === undefined) return { refused: 'missing' };
    const code = normalizePairingCode(rawCode);
    const answer = phoneAnswer.parse(
      await this.state.call('gateway_relay_phone', {
        p_code_key: code ? sharedKey('relay-code', code) : null,
        p_address_key: sharedKey('relay-guesses', guessingKey(client)),
        p_max_failures: this.pairing.maxFailedCodes,
        p_max_failures_all: this.pairing.maxFailedCodesServerWide,
        p_window_ms: this.pairing.failureWindowMs,
      }),
    );
    if ('channel' in answer) return { channel: this.channelOf(answer.channel, snapshotOf(answer.snapshot)) };
    if (answer.refused === 'unknown') return { refused: 'unknown' };
    return { refused: answer.refused, retryAfterMs: answer.retry_after_ms };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.stopListening();
    this.local.close();
    for (const { channel } of this.held.values()) channel.close();
    this.held.clear();
  }

  /** One channel as a request reaches it; what lasts is in the shared state and in `held`. */
  private channelOf(id: number, known?: TimerSnapshot): RelayChannel {
    let snapshot = known;
    return {
      latestSnapshot: async () => (snapshot ??= await this.readSnapshot(id)),
      storeSnapshot: (input) => this.storeSnapshot(id, input),
      waitForNewer: async (knownUpdatedAt, waitMs) => {
        snapshot = await this.waitForNewer(id, knownUpdatedAt, waitMs, snapshot ?? (await this.readSnapshot(id)));
      },
      relayPipAction: (action) => this.sendAction(id, action),
      notePhone: () => this.notePhone(id),
      subscribe: (stream, onClose) => this.subscribe(id, stream, onClose),
    };
  }

  private async pageId(token: string): Promise<number | null> {
    return idOrNull.parse(await this.state.call('gateway_relay_page', { p_token_key: tokenKey(token) }));
  }

  private async readSnapshot(id: number): Promise<TimerSnapshot> {
    return snapshotOf(await this.state.call('gateway_relay_read_snapshot', { p_channel: id }));
  }

  private async storeSnapshot(id: number, input: TimerSnapshotInput): Promise<StoredSnapshot> {
    const { updatedAt: _clientClock, ...fields } = input;
    const updatedAt = idOrNull.parse(
      await this.state.call('gateway_relay_store_snapshot', { p_channel: id, p_snapshot: fields }),
    );
    if (updatedAt === null) throw channelGone();
    this.state.publish({ kind: 'relay-snapshot', channel: id });
    return { ...fields, updatedAt };
  }

  /** The long poll: the snapshot once newer than `knownUpdatedAt`, or after waitMs the one there is. */
  private async waitForNewer(
    id: number,
    knownUpdatedAt: number,
    waitMs: number,
    current: TimerSnapshot,
  ): Promise<TimerSnapshot> {
    if ((current.updatedAt ?? 0) !== knownUpdatedAt) return current;
    const held = this.hold(id);
    try {
      held.channel.showSnapshot(current);
      const newer = held.channel.waitForNewer(knownUpdatedAt, waitMs);
      // Read once more now that the phone waits: a post whose event came before it did is seen here.
      void this.refresh(id);
      await newer;
      return held.channel.latestSnapshot();
    } finally {
      this.release(id);
    }
  }

  private async sendAction(id: number, action: PipAction): Promise<{ event: RelayedAction; delivered: number }> {
    const answer = actionAnswer.parse(
      await this.state.call('gateway_relay_send_action', { p_channel: id, p_action: action }),
    );
    if (answer === null)
      throw new GatewayError(
        401,
        'pairing_code_invalid',
        'No focus page shows this code: check the code on the focus page, which changes when the page is closed for a while.',
      );
    this.state.publish({ kind: 'relay-action', channel: id, action: answer.id });
    return { event: { id: answer.id, ...action, at: answer.at }, delivered: answer.delivered };
  }

  /** Tells the servers holding the channel's streams that a phone follows it; often enough to keep them told. */
  private notePhone(id: number): void {
    const now = Date.now();
    if (now - (this.phoneNoticedAt.get(id) ?? 0) < this.phoneGoneAfterMs / 3) return;
    this.phoneNoticedAt.set(id, now);
    this.state.publish({ kind: 'relay-phone', channel: id });
  }

  private async subscribe(id: number, stream: ServerResponse, onClose?: () => void): Promise<void> {
    const held = this.hold(id);
    try {
      held.channel.showSnapshot(await this.readSnapshot(id));
    } catch (error) {
      this.release(id);
      throw error;
    }
    if (stream.destroyed || stream.writableEnded) {
      this.release(id);
      return;
    }
    held.channel.subscribe(stream, () => {
      this.release(id);
      this.reportStreams([id]);
      onClose?.();
    });
    this.reportStreams([id]);
  }

  private heard(event: SharedEvent | Resync): void {
    if (event.kind === 'resync') {
      for (const [id, held] of this.held) {
        void this.refresh(id);
        if (held.highestRelayed > 0) void this.relayStored(id, held.highestRelayed);
      }
      return;
    }
    const held = this.held.get(event.channel);
    if (!held) return;
    if (event.kind === 'relay-action') {
      if (held.channel.openStreams > 0) void this.relayStored(event.channel, event.action - 1);
    } else if (event.kind === 'relay-snapshot') void this.refresh(event.channel);
    else held.channel.notePhone();
  }

  /** Relays the channel's stored actions after `after` to its streams here, each once. */
  private async relayStored(id: number, after: number): Promise<void> {
    try {
      const actions = actionsOf(await this.state.call('gateway_relay_read_actions', { p_channel: id, p_after: after }));
      for (const action of actions) {
        const held = this.held.get(id);
        if (!held) return;
        if (held.relayed.has(action.id)) continue;
        held.relayed.add(action.id);
        if (held.relayed.size > RELAYED_IDS_KEPT) held.relayed.delete(held.relayed.values().next().value as number);
        held.highestRelayed = Math.max(held.highestRelayed, action.id);
        held.channel.broadcast(formatRelayEvent('pip-action', action));
      }
    } catch (error) {
      this.options.log.warn({ err: error, channel: id }, 'timer relay: stored actions could not be read');
    }
  }

  /** Reads the channel's snapshot again, for the phones waiting here. */
  private async refresh(id: number): Promise<void> {
    try {
      const snapshot = await this.readSnapshot(id);
      this.held.get(id)?.channel.showSnapshot(snapshot);
    } catch (error) {
      this.options.log.warn({ err: error, channel: id }, 'timer relay: a snapshot could not be read');
    }
  }

  private hold(id: number): HeldChannel {
    let held = this.held.get(id);
    if (!held) {
      // Ids of relayed actions come from the database; this channel numbers none itself.
      const channel = new PipChannel(this.bufferLimit, () => 0, this.phoneGoneAfterMs);
      held = { channel, holds: 0, relayed: new Set(), highestRelayed: 0 };
      this.held.set(id, held);
    }
    held.holds++;
    return held;
  }

  private release(id: number): void {
    const held = this.held.get(id);
    if (!held || --held.holds > 0) return;
    held.channel.close();
    this.held.delete(id);
  }

  /** Reports this server's open streams of the channels (0 for one it holds none of any more). */
  private reportStreams(ids: number[]): void {
    if (this.closed || ids.length === 0) return;
    this.reports = this.reports.then(async () => {
      try {
        await this.state.call('gateway_relay_report_streams', {
          p_server: this.state.serverId,
          p_channels: ids,
          p_streams: ids.map((id) => this.held.get(id)?.channel.openStreams ?? 0),
          p_valid_ms: this.reportValidMs,
        });
      } catch (error) {
        this.options.log.warn({ err: error }, 'timer relay: open streams could not be reported');
      }
    });
  }

  /** Every ping: the streams held here are pinged and reported again; old phone notices are forgotten. */
  private renew(): void {
    const ping = `: ping ${Date.now()}\n\n`;
    const streamed: number[] = [];
    for (const [id, { channel }] of this.held) {
      channel.broadcast(ping);
      if (channel.openStreams > 0) streamed.push(id);
    }
    this.reportStreams(streamed);
    const now = Date.now();
    for (const [id, at] of this.phoneNoticedAt) if (now - at >= this.phoneGoneAfterMs) this.phoneNoticedAt.delete(id);
  }
}

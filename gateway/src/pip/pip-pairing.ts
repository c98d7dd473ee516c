// Pairing of phones with focus pages (PIP_PAIRING=on). Each focus page asks POST /__pip/pair and
// gets two things: a short code it shows to the student, and a long channel token it keeps to
// itself. The page posts its snapshot and listens for actions with the token; a phone reads that
// snapshot and sends actions with the code. So on a shared network nobody else can drive or read
// a timer, and several students on one server each see only their own page.
//
// Codes are 6 characters from 31 unambiguous letters and digits (887 million codes); a client that
// sends wrong codes is locked out for a while, so guessing one is hopeless. A pairing whose page
// has had no open event stream and posted nothing for idleTimeoutMs is forgotten.
//
// Slots are counted per client address too: one address holds at most maxPairingsPerAddress of
// them, and when it asks for more its own longest-idle pairing gives way (or, when every one of its
// pages has an open stream, it is told to wait). So one address can fill at most a small share of
// the server and never makes anyone else's page get pairing_full.
import { randomBytes, randomInt } from 'node:crypto';
import { normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#contracts/pip-pairing.ts';

export { normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#contracts/pip-pairing.ts';
/** Pairings one client address may hold at once (a student's focus tabs on one device). */
export const MAX_PAIRINGS_PER_ADDRESS = 16;
/** Retry-After when an address's every pairing has an open stream. */
export const ADDRESS_FULL_RETRY_AFTER_MS = 30_000;

export interface PipPairingsOptions {
  /** A pairing with no open stream and no state post for this long is forgotten. */
  idleTimeoutMs: number;
  /** At most this many pairings; when full, the longest-idle one without a stream makes room. */
  maxPairings: number;
  /** At most this many per client address; the address's own longest-idle one makes room. */
  maxPairingsPerAddress: number;
  /** Wrong codes one client may send per failure window before it is locked out. */
  maxFailedCodes: number;
  failureWindowMs: number;
  now: () => number;
}

export const DEFAULT_PAIRING_OPTIONS: PipPairingsOptions = {
  idleTimeoutMs: 10 * 60_000,
  maxPairings: 1_000,
  maxPairingsPerAddress: MAX_PAIRINGS_PER_ADDRESS,
  maxFailedCodes: 20,
  failureWindowMs: 10 * 60_000,
  now: Date.now,
};

export interface PairableChannel {
  readonly openStreams: number;
  close(): void;
}

export interface Pairing<Channel extends PairableChannel> {
  code: string;
  token: string;
  channel: Channel;
  lastActiveAt: number;
  /** The client address that paired the page. */
  owner: string;
}

export type PairResult<Channel extends PairableChannel> =
  | { pairing: Pairing<Channel>; reused: boolean }
  /** server: every slot holds a page with an open stream; address: every slot of this address does. */
  | { refused: 'server_full' }
  | { refused: 'address_full'; retryAfterMs: number };

function newCode(): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index++)
    code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return code;
}

export class PipPairings<Channel extends PairableChannel = PairableChannel> {
  private readonly options: PipPairingsOptions;
  private readonly tokens = new Map<string, Pairing<Channel>>();
  private readonly codes = new Map<string, Pairing<Channel>>();
  private readonly failures = new Map<string, { count: number; windowStart: number }>();
  private readonly byOwner = new Map<string, Set<Pairing<Channel>>>();

  constructor(
    private readonly createChannel: () => Channel,
    options: Partial<PipPairingsOptions> = {},
  ) {
    this.options = { ...DEFAULT_PAIRING_OPTIONS, ...options };
  }

  get size(): number {
    return this.tokens.size;
  }

  get idleTimeoutMs(): number {
    return this.options.idleTimeoutMs;
  }

  channels(): IterableIterator<Channel> {
    const pairings = this.tokens.values();
    return (function* () {
      for (const pairing of pairings) yield pairing.channel;
    })();
  }

  /** How many pairings a client address holds. */
  heldBy(owner: string): number {
    return this.byOwner.get(owner)?.size ?? 0;
  }

  /**
   * Pairs a focus page for the client at `owner` (its address). A page that still holds a known
   * token (after a reload) keeps its pairing, so a phone paired with it stays paired.
   */
  pair(existingToken?: string, owner = 'unknown'): PairResult<Channel> {
    const existing = existingToken ? this.tokens.get(existingToken) : undefined;
    if (existing) {
      existing.lastActiveAt = this.options.now();
      return { pairing: existing, reused: true };
    }
    this.forgetIdle();
    const own = this.byOwner.get(owner);
    if (own && own.size >= this.options.maxPairingsPerAddress && !this.evictLongestIdle(own)) {
      return { refused: 'address_full', retryAfterMs: ADDRESS_FULL_RETRY_AFTER_MS };
    }
    if (this.tokens.size >= this.options.maxPairings && !this.evictLongestIdle(this.tokens.values()))
      return { refused: 'server_full' };
    let code = newCode();
    while (this.codes.has(code)) code = newCode();
    const pairing: Pairing<Channel> = {
      code,
      token: randomBytes(24).toString('base64url'),
      channel: this.createChannel(),
      lastActiveAt: this.options.now(),
      owner,
    };
    this.tokens.set(pairing.token, pairing);
    this.codes.set(code, pairing);
    if (own) own.add(pairing);
    else this.byOwner.set(owner, new Set([pairing]));
    return { pairing, reused: false };
  }

  /** The page's own channel, for its state posts and event stream; marks the page active. */
  byChannelToken(token: string): Pairing<Channel> | undefined {
    const pairing = this.tokens.get(token);
    if (pairing) pairing.lastActiveAt = this.options.now();
    return pairing;
  }

  /** The channel a phone's code names; a phone's polling does not keep a closed page's pairing alive. */
  byCode(rawCode: string): Pairing<Channel> | undefined {
    const code = normalizePairingCode(rawCode);
    return code ? this.codes.get(code) : undefined;
  }

  /** Milliseconds until this client may try codes again; 0 when it may try now. */
  lockedOutFor(client: string): number {
    const entry = this.failures.get(client);
    if (!entry) return 0;
    const windowEnd = entry.windowStart + this.options.failureWindowMs;
    const now = this.options.now();
    if (now >= windowEnd) {
      this.failures.delete(client);
      return 0;
    }
    return entry.count >= this.options.maxFailedCodes ? windowEnd - now : 0;
  }

  recordFailedCode(client: string): void {
    const now = this.options.now();
    const entry = this.failures.get(client);
    if (!entry || now >= entry.windowStart + this.options.failureWindowMs)
      this.failures.set(client, { count: 1, windowStart: now });
    else entry.count++;
  }

  touch(pairing: Pairing<Channel>): void {
    pairing.lastActiveAt = this.options.now();
  }

  /** Forgets pairings whose page left more than idleTimeoutMs ago, and expired failure counts. */
  forgetIdle(): void {
    const now = this.options.now();
    for (const pairing of [...this.tokens.values()]) {
      if (pairing.channel.openStreams === 0 && now - pairing.lastActiveAt >= this.options.idleTimeoutMs)
        this.forget(pairing);
    }
    for (const [client, entry] of this.failures) {
      if (now >= entry.windowStart + this.options.failureWindowMs) this.failures.delete(client);
    }
  }

  close(): void {
    for (const pairing of this.tokens.values()) pairing.channel.close();
    this.tokens.clear();
    this.codes.clear();
    this.failures.clear();
    this.byOwner.clear();
  }

  private evictLongestIdle(candidates: Iterable<Pairing<Channel>>): boolean {
    let oldest: Pairing<Channel> | undefined;
    for (const pairing of candidates) {
      if (pairing.channel.openStreams > 0) continue;
      if (!oldest || pairing.lastActiveAt < oldest.lastActiveAt) oldest = pairing;
    }
    if (oldest) this.forget(oldest);
    return oldest !== undefined;
  }

  private forget(pairing: Pairing<Channel>): void {
    pairing.channel.close();
    this.tokens.delete(pairing.token);
    this.codes.delete(pairing.code);
    const own = this.byOwner.get(pairing.owner);
    own?.delete(pairing);
    if (own?.size === 0) this.byOwner.delete(pairing.owner);
  }
}

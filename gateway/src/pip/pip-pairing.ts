// Pairing of phones with focus pages (on unless PIP_PAIRING=off). Each focus page asks POST /__pip/pair and
// gets two things: a short code it shows to the student, and a long channel token it keeps to
// itself. The page posts its snapshot and listens for actions with the token; a phone reads that
// snapshot and sends actions with the code. So on a shared network nobody else can drive or read
// a timer, and several students on one server each see only their own page.
//
// Codes are 6 characters from 31 unambiguous letters and digits (887 million codes). A pairing whose
// page has had no open event stream and posted nothing for idleTimeoutMs is forgotten.
//
// Guessing is bounded twice (docs/api.md#pairing-codes-and-guessing). A wrong code names no page,
// so it cannot be charged to the code it was aimed at: every wrong code is a try at every live
// code at once. Hence:
// - per address: maxFailedCodes wrong codes per window, then that address is refused (before its
//   code is even looked up, so a lucky guess while locked out learns nothing). IPv6 addresses
//   count per /64, the block one device can pick its addresses from;
// - per code, i.e. for all live codes together: maxFailedCodesServerWide wrong codes per window from
//   all addresses. Past that a code is looked up only for an address that already used it (the
//   phones paired before), so an attacker with many addresses gains nothing by spreading guesses
//   out; a phone pairing for the first time waits until the window ends.
//
// Slots are counted per client address too: one address holds at most maxPairingsPerAddress of
// them, and when it asks for more its own longest-idle pairing gives way (or, when every one of its
// pages has an open stream, it is told to wait). So one address can fill at most a small share of
// the server and never makes anyone else's page get pairing_full.
import { randomBytes, randomInt } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#contracts/pip-pairing.ts';

export { normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#contracts/pip-pairing.ts';
/** Pairings one client address may hold at once (a student's focus tabs on one device). */
export const MAX_PAIRINGS_PER_ADDRESS = 16;
/** Retry-After when an address's every pairing has an open stream. */
export const ADDRESS_FULL_RETRY_AFTER_MS = 30_000;
/** Addresses a pairing remembers as its phones (they keep working while guessing is paused). */
export const MAX_PHONES_PER_PAIRING = 8;

export interface PipPairingsOptions {
  /** A pairing with no open stream and no state post for this long is forgotten. */
  idleTimeoutMs: number;
  /** At most this many pairings; when full, the longest-idle one without a stream makes room. */
  maxPairings: number;
  /** At most this many per client address; the address's own longest-idle one makes room. */
  maxPairingsPerAddress: number;
  /** Wrong codes one client address (an IPv6 /64) may send per failure window before it is locked out. */
  maxFailedCodes: number;
  /** Wrong codes from all addresses together per failure window; past them only known phones get in. */
  maxFailedCodesServerWide: number;
  failureWindowMs: number;
  now: () => number;
}

export const DEFAULT_PAIRING_OPTIONS: PipPairingsOptions = {
  idleTimeoutMs: 10 * 60_000,
  maxPairings: 1_000,
  maxPairingsPerAddress: MAX_PAIRINGS_PER_ADDRESS,
  maxFailedCodes: 20,
  maxFailedCodesServerWide: 100,
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
  /** Address keys of the phones that used the code (at most MAX_PHONES_PER_PAIRING). */
  phones: Set<string>;
}

/** What a phone's code got it: its page's pairing, or why not. */
export type PhoneAttempt<Channel extends PairableChannel> =
  | { pairing: Pairing<Channel> }
  | { refused: 'missing' }
  | { refused: 'unknown' }
  /** address: this address sent too many wrong codes; server: all addresses together did. */
  | { refused: 'address_locked' | 'server_paused'; retryAfterMs: number };

interface FailureWindow {
  count: number;
  windowStart: number;
}

/** One client's key for the wrong-code count: an IPv4 address, or the /64 an IPv6 address lies in. */
export function guessingKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
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
  private readonly failures = new Map<string, FailureWindow>();
  private serverFailures: FailureWindow | undefined;
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
      phones: new Set(),
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

  /**
   * A phone at `client` names `rawCode`: its pairing when the code is live and guessing is not
   * refused; a wrong code is counted against the address and against the server-wide budget.
   */
  phoneAttempt(rawCode: string | undefined, client: string): PhoneAttempt<Channel> {
    const key = guessingKey(client);
    const addressWait = this.waitOf(this.failures.get(key), this.options.maxFailedCodes);
    if (addressWait > 0) return { refused: 'address_locked', retryAfterMs: addressWait };
    if (rawCode === undefined) return { refused: 'missing' };
    const code = normalizePairingCode(rawCode);
    const pairing = code ? this.codes.get(code) : undefined;
    const serverWait = this.waitOf(this.serverFailures, this.options.maxFailedCodesServerWide);
    if (serverWait > 0 && !pairing?.phones.has(key)) return { refused: 'server_paused', retryAfterMs: serverWait };
    if (!pairing) {
      this.recordFailedCode(key);
      return { refused: 'unknown' };
    }
    if (pairing.phones.size < MAX_PHONES_PER_PAIRING) pairing.phones.add(key);
    return { pairing };
  }

  private recordFailedCode(key: string): void {
    const now = this.options.now();
    const windowMs = this.options.failureWindowMs;
    const entry = this.failures.get(key);
    if (!entry || now >= entry.windowStart + windowMs) this.failures.set(key, { count: 1, windowStart: now });
    else entry.count++;
    if (!this.serverFailures || now >= this.serverFailures.windowStart + windowMs)
      this.serverFailures = { count: 1, windowStart: now };
    else this.serverFailures.count++;
  }

  /** How long a failure window with `max` wrong codes still refuses; 0 when it does not. */
  private waitOf(entry: FailureWindow | undefined, max: number): number {
    if (!entry || entry.count < max) return 0;
    return Math.max(0, entry.windowStart + this.options.failureWindowMs - this.options.now());
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
    this.serverFailures = undefined;
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

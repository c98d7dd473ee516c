// How much realtime traffic clients may make, per connection and for the whole server, as hosted
// Realtime limits a project's tenant (messages and presence events per second, channel joins per
// second) and each connection. Sized for one school's server: far above what the app and
// realtime-js send (a chat is sent by the database, a presence track is one message), far below
// what would keep the server from answering everyone else.
//
// Each limit is a token bucket: it holds at most its burst and refills at its rate, so a burst is
// allowed once, then the rate. Bytes count what a client's messages put on the wire: the frame it
// sent, and for a broadcast its payload once per channel that receives it, so that one message to
// many channels costs what it costs the server. The server-wide buckets are shared by every socket
// of this server (one object, made by the socket routes); each connection has its own.
//
// What happens past a limit (socket.ts), in Realtime's words:
// - a connection past its own message or byte limit is ended, as hosted Realtime disconnects the
//   connections of a project over its message rate (`tenant_events`): each of its channels gets
//   the system error "Too many messages per second" and phx_close, then the socket is closed; what
//   it sends meanwhile is dropped unread;
// - past the server's byte limit, a large frame (over UNREAD_FRAME_BYTES, or a broadcast of one)
//   ends its connection the same way, unread: a flood is made of large frames, and reading them is
//   its cost; a small one is dropped and only its channel is shut down;
// - past the server's message limit or a presence limit, the message is dropped and its channel
//   shut down ("Too many messages per second", "Too many presence messages per second", "Client
//   presence rate limit exceeded"), as hosted shuts a channel down; the other channels carry on;
// - a join past the server's joins per second gets Realtime's error reply
//   "ClientJoinRateLimitReached: Too many joins per second" (hosted also disconnects the socket;
//   here its other channels stay, since the limit was reached by others).

/** A token bucket: `burst` at most, refilled at `perSecond`. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    now: number = performance.now(),
  ) {
    this.tokens = burst;
    this.refilledAt = now;
  }

  /** Takes `cost` if the bucket holds it; a cost past the burst is never taken. */
  take(cost = 1, now: number = performance.now()): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < cost) return false;
    this.tokens -= cost;
    return true;
  }

  /** Gives back what a message took when it was dropped for another limit. */
  giveBack(cost: number): void {
    this.tokens = Math.min(this.burst, this.tokens + cost);
  }
}

export interface Rate {
  perSecond: number;
  burst: number;
}

export interface RealtimeLimits {
  /** Messages one connection sends on its channels (broadcasts, and events Realtime does not know). */
  connectionMessages: Rate;
  /** Bytes one connection's messages put on the wire (its frames, and each broadcast once per receiver). */
  connectionBytes: Rate;
  /** Presence events (track, untrack) of one connection. */
  connectionPresence: Rate;
  /** The same for all connections of the server together. */
  serverMessages: Rate;
  serverBytes: Rate;
  serverPresence: Rate;
  /** Channel joins of all connections together (a join past the channel limit costs nothing and is not counted). */
  serverJoins: Rate;
}

const MiB = 1024 * 1024;

/**
 * The limits localbase runs with (docs/localbase.md, "Limits"). Hosted Realtime's free plan allows
 * 100 messages, 100 joins and 20 presence messages per second per project, averaged over a minute;
 * a school's server has many more clients and no second tenant, but one machine.
 */
export const REALTIME_LIMITS: RealtimeLimits = {
  connectionMessages: { perSecond: 25, burst: 50 },
  connectionBytes: { perSecond: MiB, burst: 16 * MiB },
  connectionPresence: { perSecond: 1, burst: 10 },
  serverMessages: { perSecond: 500, burst: 1000 },
  serverBytes: { perSecond: 4 * MiB, burst: 4 * MiB },
  serverPresence: { perSecond: 100, burst: 200 },
  serverJoins: { perSecond: 100, burst: 300 },
};

/**
 * A frame larger than this that the server's byte budget cannot take ends its connection, unread
 * (a flood is made of large frames; a student's message is small).
 */
export const UNREAD_FRAME_BYTES = 64 * 1024;

/** Realtime's reasons, word for word. */
export const TOO_MANY_MESSAGES = 'Too many messages per second';
export const TOO_MANY_PRESENCE_MESSAGES = 'Too many presence messages per second';
export const CLIENT_PRESENCE_RATE_LIMIT = 'Client presence rate limit exceeded';
export const TOO_MANY_JOINS = 'ClientJoinRateLimitReached: Too many joins per second';

const bucket = (rate: Rate) => new TokenBucket(rate.perSecond, rate.burst);

/** The server-wide buckets: one per server, shared by every connection. */
export class ServerRateLimits {
  readonly messages: TokenBucket;
  readonly bytes: TokenBucket;
  readonly presence: TokenBucket;
  readonly joins: TokenBucket;

  constructor(readonly limits: RealtimeLimits = REALTIME_LIMITS) {
    this.messages = bucket(limits.serverMessages);
    this.bytes = bucket(limits.serverBytes);
    this.presence = bucket(limits.serverPresence);
    this.joins = bucket(limits.serverJoins);
  }
}

/**
 * What a limit answered: within it, or refused with Realtime's reason and what it ends: the whole
 * connection (its own limit), the channel the message was for, or only the message (an error reply).
 */
export type Verdict = { ok: true } | { ok: false; reason: string; ends: 'connection' | 'channel' | 'message' };

const OK: Verdict = { ok: true };

/** One connection's buckets, and the server's behind them. */
export class ConnectionRateLimits {
  private readonly messages: TokenBucket;
  private readonly bytes: TokenBucket;
  private readonly presence: TokenBucket;

  constructor(private readonly server: ServerRateLimits) {
    this.messages = bucket(server.limits.connectionMessages);
    this.bytes = bucket(server.limits.connectionBytes);
    this.presence = bucket(server.limits.connectionPresence);
  }

  /**
   * A frame as it arrives, before it is read: its bytes. A large frame the server's budget cannot
   * take ends its connection too (it is not read: reading it is the cost the budget bounds); a small
   * one is read, and its channel closed, by the caller.
   */
  frame(bytes: number): Verdict {
    if (!this.bytes.take(bytes)) return { ok: false, reason: TOO_MANY_MESSAGES, ends: 'connection' };
    if (!this.server.bytes.take(bytes)) {
      this.bytes.giveBack(bytes);
      return { ok: false, reason: TOO_MANY_MESSAGES, ends: bytes > UNREAD_FRAME_BYTES ? 'connection' : 'channel' };
    }
    return OK;
  }

  /**
   * A message a client sends on a channel: a broadcast, or an event Realtime does not know. Not
   * heartbeats, joins, leaves or token refreshes (realtime-js sends one per channel at once), nor
   * presence, which has its own limits, as hosted Realtime counts them.
   */
  message(): Verdict {
    if (!this.messages.take()) return { ok: false, reason: TOO_MANY_MESSAGES, ends: 'connection' };
    if (!this.server.messages.take()) {
      this.messages.giveBack(1);
      return { ok: false, reason: TOO_MANY_MESSAGES, ends: 'channel' };
    }
    return OK;
  }

  /**
   * A broadcast's deliveries: its payload's bytes once per receiving channel. A large message they
   * cannot pay for is a flood's, and ends the connection as a large frame does (`frame`); a small
   * one, or one no budget could ever take (its cost past a burst), only shuts its channel down.
   */
  delivery(bytes: number, frameBytes: number): Verdict {
    if (bytes === 0) return OK;
    const never = bytes > this.bytes.burst || bytes > this.server.bytes.burst;
    const ends = !never && frameBytes > UNREAD_FRAME_BYTES ? 'connection' : 'channel';
    if (!this.bytes.take(bytes)) return { ok: false, reason: TOO_MANY_MESSAGES, ends };
    if (!this.server.bytes.take(bytes)) {
      this.bytes.giveBack(bytes);
      return { ok: false, reason: TOO_MANY_MESSAGES, ends };
    }
    return OK;
  }

  /** A presence event (track or untrack). */
  presenceEvent(): Verdict {
    if (!this.presence.take()) return { ok: false, reason: CLIENT_PRESENCE_RATE_LIMIT, ends: 'channel' };
    if (!this.server.presence.take()) {
      this.presence.giveBack(1);
      return { ok: false, reason: TOO_MANY_PRESENCE_MESSAGES, ends: 'channel' };
    }
    return OK;
  }

  /** A join that will cost work (within the channel limit). */
  join(): Verdict {
    return this.server.joins.take() ? OK : { ok: false, reason: TOO_MANY_JOINS, ends: 'message' };
  }
}

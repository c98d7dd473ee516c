// /realtime/v1/websocket: the Phoenix channel subset realtime-js speaks: heartbeat, phx_join
// (replying with server-assigned binding ids), access_token, phx_leave, postgres_changes events
// carrying `ids`, broadcast between the channels of one topic (topics.ts) and presence
// (presence.ts). Private channels (`config.private`) are authorized as Supabase Realtime
// authorizes them, by RLS on realtime.messages (authorization.ts): to join, to broadcast and to
// track; they meet only the private channels of their topic. A channel whose token no longer
// holds at a delivery (expired, its session ended, its user banned: channel-guard.ts) is shut down
// with Realtime's system error and phx_close. Both Phoenix
// serializers are spoken, chosen per socket by the URL's `vsn` (frames.ts); the channel semantics
// are the same for both. What one socket may hold is bounded: channels (as Supabase Realtime's
// max_channels_per_client), bindings per channel, and frames waiting for a client that does not read.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { decodeJwt } from 'jose';
import { claimsSchema, JwtError, verifyJwt, type VerificationKeys, type VerifiedToken } from '../jwt.ts';
import { exposedHeaders } from '../request-transaction.ts';
import type { Authorize, AuthorizationAnswer, Extension } from './authorization.ts';
import { expiredMessage } from './channel-guard.ts';
import { parseRowFilter } from './filter.ts';
import { BINARY_PAYLOAD, codecFor, type Frame, type FrameCodec } from './frames.ts';
import type { Binding, ChannelSubscription, RealtimeHub } from './hub.ts';
import { broadcastRoutes } from './http-broadcast.ts';
import { PresenceRegistry } from './presence.ts';
import { ConnectionRateLimits, ServerRateLimits, type RealtimeLimits, type Verdict } from './rate-limits.ts';
import { payloadBytes, REALTIME_MAX_BROADCAST_BYTES, roomOf, Topics, type TopicMember } from './topics.ts';

export interface RealtimeRoutesOptions {
  hub: RealtimeHub;
  /** The project secret, and the ES256 public keys of its sessions (jwt.ts). */
  jwtSecret: VerificationKeys;
  /** Whether a user token's session still exists and its user is not banned (auth/sessions.ts). */
  sessionLive: (sessionId: string) => Promise<boolean>;
  /** Realtime Authorization of a private channel's topic (authorization.ts). */
  authorize: Authorize;
  /** The rate limits (rate-limits.ts); REALTIME_LIMITS unless a test asks for others. */
  limits?: RealtimeLimits;
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const postgresChange = z.object({
  event: z.string(),
  schema: z.string(),
  table: z.string().optional(),
  filter: z.string().optional(),
});
const channelConfig = z
  .object({
    postgres_changes: z.array(postgresChange).default([]),
    broadcast: z
      .object({ self: z.boolean().default(false), ack: z.boolean().default(false) })
      .passthrough()
      .default({ self: false, ack: false }),
    // A join without `enabled` (realtime-js before it sent the flag, as 2.10 does, and clients in
    // other languages) has presence on, as Realtime treats a missing flag; newer realtime-js sends
    // `enabled: false` when the channel has no presence listeners.
    presence: z
      .object({ key: z.string().default(''), enabled: z.boolean().default(true) })
      .passthrough()
      .default({ key: '', enabled: true }),
    private: z.boolean().default(false),
  })
  .passthrough();
const joinPayload = z.object({
  config: channelConfig.default({
    postgres_changes: [],
    broadcast: { self: false, ack: false },
    presence: { key: '', enabled: true },
    private: false,
  }),
  access_token: z.string().optional(),
});
const broadcastPayload = z.object({ type: z.literal('broadcast'), event: z.string(), payload: z.unknown().optional() });
const presencePayload = z.object({
  type: z.literal('presence'),
  event: z.enum(['track', 'untrack']),
  payload: z.unknown().optional(),
});
const accessTokenPayload = z.object({ access_token: z.string() });
const connectQuery = z.object({ apikey: z.string().min(1) }).passthrough();
const versionQuery = z.object({ vsn: z.unknown().optional() }).passthrough();

/** Largest frame a client may send: joins and tokens are small; this bounds what one frame costs. */
export const REALTIME_MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Channels one connection may have joined (or be joining) at once: Supabase Realtime's default
 * `max_channels_per_client`. Every channel is one more subscription each captured change is
 * matched against, so without a bound one socket could make every write cost the server work
 * for thousands of channels. A join past it is refused with Realtime's reply; the socket and its
 * channels stay as they were.
 */
export const REALTIME_MAX_CHANNELS_PER_CLIENT = 100;

/** Realtime's reply to a join past the channel limit (`{:error, :too_many_channels}`). */
export const TOO_MANY_CHANNELS_REASON = 'ChannelRateLimitReached: Too many channels';

/**
 * postgres_changes bindings one join may ask for. Hosted Realtime has no documented bound; each
 * binding is matched against every captured change, and a join of 1 MiB could otherwise carry tens
 * of thousands of them.
 */
export const REALTIME_MAX_BINDINGS_PER_CHANNEL = 100;

/**
 * Frames waiting to be written to a client that does not read them: past this the socket is
 * dropped, its channels with it, instead of the server holding every frame it would still send.
 */
export const REALTIME_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Realtime's answer to a private join it cannot authorize. */
export function privateChannelReason(topic: string): string {
  return `Unauthorized: You do not have permissions to read from this Channel topic: ${topic.replace(/^realtime:/, '')}`;
}

/** One joined channel: its postgres_changes bindings (hub.ts) and its place in its topic (topics.ts). */
interface Channel extends ChannelSubscription, TopicMember {
  /** `config.broadcast.ack`: the sender's broadcasts are answered. */
  broadcastAck: boolean;
  /** `config.private`: authorized by realtime.messages' policies. */
  private: boolean;
  /** A private channel's write answers, asked on its first send of each and kept until its token changes. */
  writes: Map<Extension, Promise<boolean>>;
}

/**
 * Why a refreshed token was refused, in Realtime's words: its expiry as Realtime counts it, else the
 * verification's own reason.
 */
function refusedTokenMessage(accessToken: string, error: unknown): string {
  if (error instanceof JwtError && error.reason === 'expired') {
    try {
      const claims = claimsSchema.parse(decodeJwt(accessToken));
      const expired = expiredMessage({ role: 'anon', claims });
      if (expired !== undefined) return expired;
    } catch {
      // Not readable as claims: the generic reason below.
    }
  }
  return `Invalid JWT: ${error instanceof Error ? error.message : String(error)}`;
}

/** A limit's refusal (rate-limits.ts). */
type Refused = Exclude<Verdict, { ok: true }>;

/** How long a connection ended for its rate has its channels' shutdown frames before the close. */
const SHUTDOWN_BEFORE_CLOSE_MS = 250;

/** How long a connection ended for its rate gets to answer the close before it is dropped. */
const CLOSE_HANDSHAKE_MS = 1000;

function frameBytes(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, part) => total + part.length, 0);
  return data.byteLength;
}

/** The topic a private channel is authorized for: realtime.topic() is the topic without `realtime:`. */
function subTopic(topic: string): string {
  return topic.replace(/^realtime:/, '');
}

export async function realtimeRoutes(app: FastifyInstance, options: RealtimeRoutesOptions): Promise<void> {
  const { hub } = options;
  const topics = new Topics(
    (members) => hub.admit(members),
    (error) => app.log.error({ err: error }, 'realtime session check failed'),
  );
  const presence = new PresenceRegistry(topics);
  const serverLimits = new ServerRateLimits(options.limits);
  hub.relayBroadcastsTo(topics);

  // An unknown serializer version is refused before the upgrade, as Phoenix refuses it (403).
  const refuseUnknownVersion = async (request: FastifyRequest, reply: FastifyReply) => {
    const { vsn } = versionQuery.parse(request.query ?? {});
    if (!codecFor(vsn)) {
      return reply
        .status(403)
        .send({ message: `unsupported serializer version ${JSON.stringify(vsn)}: use vsn=1.0.0 or vsn=2.0.0` });
    }
  };

  await app.register(broadcastRoutes, {
    topics,
    jwtSecret: options.jwtSecret,
    authorize: options.authorize,
    limits: serverLimits,
  });

  app.get(
    '/websocket',
    { websocket: true, preValidation: refuseUnknownVersion },
    (socket: WebSocket, request: FastifyRequest) => {
      const chosen = codecFor(versionQuery.parse(request.query ?? {}).vsn);
      if (!chosen) return socket.close(1008, 'unsupported serializer version');
      const codec: FrameCodec = chosen;
      const channels = new Map<string, Channel>();
      const limits = new ConnectionRateLimits(serverLimits);
      /** Set once the connection went past its own limits: nothing it sends is read any more. */
      let ending = false;
      /** Topics whose join is still verifying its token, with how many joins of each are: they hold a channel's place. */
      const joining = new Map<string, number>();
      let closed = false;
      const send = (frame: Frame) => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > REALTIME_MAX_BUFFERED_BYTES) {
          // A client this far behind gets no close handshake: that would wait for it to read too.
          socket.terminate();
          return;
        }
        socket.send(codec.encode(frame));
      };
      const reply = (
        joinRef: string | null,
        ref: string | null,
        topic: string,
        status: 'ok' | 'error',
        response: object,
      ) => send({ joinRef, ref, topic, event: 'phx_reply', payload: { status, response } });

      const query = connectQuery.safeParse(request.query);
      const apiKey = query.success
        ? verifyJwt(query.data.apikey, options.jwtSecret)
        : Promise.reject(new JwtError('invalid', 'no apikey'));
      apiKey.catch(() => socket.close(1008, 'invalid or missing apikey'));

      async function verifiedToken(accessToken: string | undefined): Promise<VerifiedToken> {
        return accessToken ? verifyJwt(accessToken, options.jwtSecret) : apiKey;
      }

      /**
       * Ends a channel the server will no longer serve, as Realtime shuts one down: a `system` error
       * naming why, then `phx_close` (realtime-js reports CLOSED; an app joins again with a fresh
       * token). A channel already left or replaced by a newer join of its topic is left alone.
       */
      function shutDown(channel: Channel, message: string): void {
        if (channels.get(channel.topic) !== channel) return;
        leave(channel.topic);
        const { joinRef, topic } = channel;
        send({
          joinRef,
          ref: null,
          topic,
          event: 'system',
          payload: { extension: 'system', status: 'error', message, channel: subTopic(topic) },
        });
        send({ joinRef, ref: null, topic, event: 'phx_close', payload: {} });
      }

      /**
       * Ends a connection past its own limits, as hosted Realtime disconnects one: each channel is
       * shut down with the reason, then the socket is closed (and dropped if the client does not
       * answer the close).
       */
      function endConnection(reason: string): void {
        if (ending) return;
        ending = true;
        request.log.warn({ reason }, 'realtime connection past its rate limits ended');
        for (const channel of [...channels.values()]) shutDown(channel, reason);
        // The close follows a moment later: a proxy in between drops a client whose backend closed,
        // unread, and the shutdown frames must have reached the client by then.
        const closing = setTimeout(() => {
          socket.close(1008, reason);
          setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_MS).unref();
        }, SHUTDOWN_BEFORE_CLOSE_MS);
        closing.unref();
      }

      /** A message a limit refused: dropped, with what the limit ends (rate-limits.ts). */
      function refuse(verdict: Refused, ref: string | null, topic: string): void {
        const channel = channels.get(topic);
        if (verdict.ends === 'connection') return endConnection(verdict.reason);
        if (verdict.ends === 'channel' && channel) return shutDown(channel, verdict.reason);
        if (ref !== null) reply(channel?.joinRef ?? null, ref, topic, 'error', { reason: verdict.reason });
      }

      function leave(topic: string): void {
        const channel = channels.get(topic);
        if (channel) {
          hub.remove(channel);
          // Out of the topic first: the leave diff goes to the channels that stay.
          topics.remove(channel);
          presence.untrack(channel);
        }
        channels.delete(topic);
      }

      /** Channels joined or being joined; a topic counts once however often it is joined. */
      function channelsHeld(): number {
        let held = channels.size;
        for (const topic of joining.keys()) if (!channels.has(topic)) held += 1;
        return held;
      }

      /**
       * Holds the topic's place while its join verifies the token: joins sent back to back all
       * arrive before the first one is done, and each must see the others. False when it is full.
       */
      function reserve(topic: string): boolean {
        const rejoin = channels.has(topic) || joining.has(topic);
        if (!rejoin && channelsHeld() >= REALTIME_MAX_CHANNELS_PER_CLIENT) return false;
        joining.set(topic, (joining.get(topic) ?? 0) + 1);
        return true;
      }

      function release(topic: string): void {
        const count = (joining.get(topic) ?? 1) - 1;
        if (count > 0) joining.set(topic, count);
        else joining.delete(topic);
      }

      const headers = exposedHeaders(request.headers);

      /** What a policy raised while it was asked is logged: the channel got a "no" for it. */
      function logPolicyErrors(topic: string, answer: AuthorizationAnswer): void {
        for (const error of answer.errors)
          request.log.warn(
            { topic, extension: error.extension, code: error.code },
            `realtime policy error: ${error.message}`,
          );
      }

      /**
       * What a private channel may receive, as realtime.messages' policies answer for its token; a
       * channel that may receive nothing is refused (undefined). Presence counts only when the
       * join enables it, as hosted Realtime asks about presence only then.
       */
      async function readAuthorization(
        topic: string,
        token: VerifiedToken,
        presenceEnabled: boolean,
      ): Promise<{ broadcast: boolean; presence: boolean } | undefined> {
        let answer: AuthorizationAnswer;
        try {
          answer = await options.authorize(subTopic(topic), token, headers, ['broadcast', 'presence'], 'read');
        } catch (error) {
          request.log.error({ err: error, topic }, 'realtime authorization failed');
          return undefined;
        }
        logPolicyErrors(topic, answer);
        const broadcast = answer.allowed.get('broadcast') === true;
        const presence = answer.allowed.get('presence') === true;
        return broadcast || (presenceEnabled && presence) ? { broadcast, presence } : undefined;
      }

      /** Whether a channel may send (broadcast) or track (presence): always for a public one. */
      function mayWrite(channel: Channel, extension: Extension): Promise<boolean> {
        if (!channel.private) return Promise.resolve(true);
        let answer = channel.writes.get(extension);
        if (!answer) {
          answer = options
            .authorize(subTopic(channel.topic), channel.token, headers, [extension], 'write')
            .then((answered) => {
              logPolicyErrors(channel.topic, answered);
              return answered.allowed.get(extension) === true;
            })
            .catch((error: unknown) => {
              request.log.error({ err: error, topic: channel.topic }, 'realtime authorization failed');
              channel.writes.delete(extension);
              return false;
            });
          channel.writes.set(extension, answer);
        }
        return answer;
      }

      async function join(joinRef: string | null, ref: string | null, topic: string, payload: unknown): Promise<void> {
        const parsed = joinPayload.safeParse(payload);
        if (!parsed.success) return reply(joinRef, ref, topic, 'error', { reason: 'invalid join payload' });
        if (parsed.data.config.postgres_changes.length > REALTIME_MAX_BINDINGS_PER_CHANNEL) {
          return reply(joinRef, ref, topic, 'error', {
            reason: `Too many postgres_changes: at most ${REALTIME_MAX_BINDINGS_PER_CHANNEL} per channel`,
          });
        }
        if (!reserve(topic)) return reply(joinRef, ref, topic, 'error', { reason: TOO_MANY_CHANNELS_REASON });
        // Counted only here: a join refused above costs nothing.
        const counted = limits.join();
        if (!counted.ok) {
          release(topic);
          return refuse(counted, ref, topic);
        }
        try {
          await completeJoin(joinRef, ref, topic, parsed.data);
        } finally {
          release(topic);
        }
      }

      async function completeJoin(
        joinRef: string | null,
        ref: string | null,
        topic: string,
        request: z.infer<typeof joinPayload>,
      ): Promise<void> {
        let token: VerifiedToken;
        try {
          token = await verifiedToken(request.access_token);
        } catch (error) {
          return reply(joinRef, ref, topic, 'error', { reason: `Invalid JWT: ${(error as Error).message}` });
        }
        // A logged-out or banned user's token joins nothing (deliveries check the session too).
        const sessionId = token.claims.session_id;
        if (sessionId !== undefined && !(SESSION_ID.test(sessionId) && (await options.sessionLive(sessionId)))) {
          return reply(joinRef, ref, topic, 'error', { reason: 'Invalid JWT: the session of this token has ended' });
        }
        const isPrivate = request.config.private;
        const receives = isPrivate
          ? await readAuthorization(topic, token, request.config.presence.enabled)
          : { broadcast: true, presence: true };
        if (receives === undefined) return reply(joinRef, ref, topic, 'error', { reason: privateChannelReason(topic) });
        // A socket that closed while the token was verified has left all its channels already.
        if (closed) return;
        const bindings: Binding[] = [];
        for (const change of request.config.postgres_changes) {
          const filter = parseRowFilter(change.filter);
          if (filter instanceof Error) return reply(joinRef, ref, topic, 'error', { reason: filter.message });
          bindings.push({
            id: hub.assignBindingId(),
            event: change.event,
            schema: change.schema,
            table: change.table,
            filter,
          });
        }
        leave(topic);
        const { broadcast } = request.config;
        const subscription: Channel = {
          topic,
          room: roomOf(topic, isPrivate),
          receives,
          private: isPrivate,
          writes: new Map(),
          joinRef,
          bindings,
          token,
          joinedAt: new Date(),
          send,
          close: (message) => shutDown(subscription, message),
          broadcastSelf: broadcast.self,
          broadcastAck: broadcast.ack,
          // An empty key is the channel's own, as Realtime generates one.
          presence: { key: request.config.presence.key || randomUUID(), enabled: false },
        };
        channels.set(topic, subscription);
        hub.add(subscription);
        topics.add(subscription);
        // Echo each binding as the client sent it, plus its id: realtime-js compares them field by field.
        const echoed = request.config.postgres_changes.map((change, index) => ({ ...change, id: bindings[index]?.id }));
        reply(joinRef, ref, topic, 'ok', { postgres_changes: echoed });
        if (bindings.length > 0) {
          send({
            joinRef,
            ref: null,
            topic,
            event: 'system',
            payload: {
              message: 'Subscribed to PostgreSQL',
              status: 'ok',
              extension: 'postgres_changes',
              channel: topic.replace(/^realtime:/, ''),
            },
          });
        }
        if (request.config.presence.enabled) presence.enable(subscription);
      }

      /**
       * A client's broadcast: to the room's other channels (and itself with `self`), answered with
       * `ack`. A private channel whose policies refuse it the write sends nothing and hears no
       * answer, as hosted Realtime drops it.
       */
      async function relay(ref: string | null, topic: string, payload: unknown, frameBytes: number): Promise<void> {
        const counted = limits.message();
        if (!counted.ok) return refuse(counted, ref, topic);
        const channel = channels.get(topic);
        if (!channel) {
          if (ref !== null) reply(null, ref, topic, 'error', { reason: 'unmatched topic' });
          return;
        }
        const message = broadcastPayload.safeParse(payload);
        if (!message.success) {
          if (ref !== null) reply(channel.joinRef, ref, topic, 'error', { reason: 'invalid broadcast payload' });
          return;
        }
        if (message.data.payload === BINARY_PAYLOAD) {
          if (ref !== null)
            reply(channel.joinRef, ref, topic, 'error', {
              reason: 'localbase realtime relays JSON broadcast payloads only',
            });
          return;
        }
        // The frame holds the payload: one within the limit needs no measuring of its own, and its
        // size stands for the payload's in what the deliveries cost.
        const bytes = frameBytes <= REALTIME_MAX_BROADCAST_BYTES ? frameBytes : payloadBytes(message.data.payload);
        if (bytes > REALTIME_MAX_BROADCAST_BYTES) {
          if (ref !== null) {
            reply(channel.joinRef, ref, topic, 'error', {
              reason: `Payload too large: at most ${REALTIME_MAX_BROADCAST_BYTES} bytes per broadcast`,
            });
          }
          return;
        }
        if (!(await mayWrite(channel, 'broadcast'))) return;
        // What the message will put on the wire: its payload once per channel that hears it.
        const delivered = limits.delivery(bytes * topics.broadcastReceivers(channel.room, channel), frameBytes);
        if (!delivered.ok) return refuse(delivered, ref, topic);
        topics.broadcast(
          channel.room,
          { type: 'broadcast', event: message.data.event, payload: message.data.payload },
          channel,
        );
        if (channel.broadcastAck && ref !== null) reply(channel.joinRef, ref, topic, 'ok', {});
      }

      /**
       * track / untrack on a joined channel, answered as Realtime answers them. A private channel
       * tracks only where the policies let it write presence (else an error reply, as hosted).
       */
      async function presenceEvent(ref: string | null, topic: string, payload: unknown): Promise<void> {
        const counted = limits.presenceEvent();
        if (!counted.ok) return refuse(counted, ref, topic);
        const channel = channels.get(topic);
        if (!channel) {
          if (ref !== null) reply(null, ref, topic, 'error', { reason: 'unmatched topic' });
          return;
        }
        const parsed = presencePayload.safeParse(payload);
        if (parsed.success && parsed.data.event === 'track' && !(await mayWrite(channel, 'presence'))) {
          if (ref !== null) reply(channel.joinRef, ref, topic, 'error', {});
          return;
        }
        const refused = !parsed.success
          ? 'invalid presence payload'
          : parsed.data.event === 'track'
            ? presence.track(channel, parsed.data.payload)
            : (presence.untrack(channel), undefined);
        if (ref !== null)
          reply(channel.joinRef, ref, topic, refused ? 'error' : 'ok', refused ? { reason: refused } : {});
      }

      /**
       * `size`: the frame's bytes. `refusedBytes`: the server's byte budget could not take the frame
       * (a small one, read anyway).
       */
      async function handle(frame: Frame, size: number, refusedBytes: Refused | undefined): Promise<void> {
        const { ref, topic, event, payload } = frame;
        // A channel's later frames name its join; a 1.0.0 client may leave join_ref out.
        const joinRef = frame.joinRef ?? channels.get(topic)?.joinRef ?? null;
        if (topic === 'phoenix' && event === 'heartbeat') return reply(null, ref, topic, 'ok', {});
        // Joins, leaves and token refreshes have limits of their own, or none: they stay possible.
        if (refusedBytes && (event === 'broadcast' || event === 'presence')) return refuse(refusedBytes, ref, topic);
        switch (event) {
          case 'phx_join':
            return join(joinRef, ref, topic, payload);
          case 'phx_leave':
            leave(topic);
            return reply(joinRef, ref, topic, 'ok', {});
          case 'broadcast':
            return relay(ref, topic, payload, size);
          case 'presence':
            return presenceEvent(ref, topic, payload);
          case 'access_token': {
            const channel = channels.get(topic);
            const parsed = accessTokenPayload.safeParse(payload);
            if (!channel || !parsed.success) return;
            let token: VerifiedToken;
            try {
              token = await verifyJwt(parsed.data.access_token, options.jwtSecret);
            } catch (error) {
              // A token that no longer verifies ends the channel, as Realtime does.
              return shutDown(channel, refusedTokenMessage(parsed.data.access_token, error));
            }
            channel.token = token;
            if (channel.private) {
              // The policies are asked again for the new token, as Realtime does: one that may no
              // longer read the topic ends the channel; what it may write is asked anew.
              channel.writes.clear();
              const receives = await readAuthorization(topic, token, channel.presence.enabled);
              if (receives === undefined) {
                return shutDown(
                  channel,
                  `You no longer have permission to read from this Channel topic: ${subTopic(topic)}`,
                );
              }
              channel.receives = receives;
            }
            return;
          }
          default: {
            const counted = limits.message();
            if (!counted.ok) return refuse(counted, ref, topic);
            if (ref !== null) {
              reply(joinRef, ref, topic, 'error', { reason: `localbase realtime does not support "${event}"` });
            }
          }
        }
      }

      socket.on('message', (data, isBinary) => {
        if (ending) return;
        // The frame's bytes are counted before it is read: a flood is dropped at the cost of receiving it.
        const size = frameBytes(data);
        const arrived = limits.frame(size);
        if (!arrived.ok && arrived.ends === 'connection') return endConnection(arrived.reason);
        const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        const frame = isBinary ? codec.decodeBinary?.(bytes) : codec.decode(bytes.toString('utf8'));
        if (!frame) return;
        handle(frame, size, arrived.ok ? undefined : arrived).catch((error: unknown) =>
          request.log.error({ err: error }, 'realtime message failed'),
        );
      });
      socket.on('close', () => {
        closed = true;
        for (const topic of [...channels.keys()]) leave(topic);
      });
    },
  );
}

// Realtime's HTTP broadcast, for sending without a socket: `POST /realtime/v1/api/broadcast` with
// `{"messages": [{topic, event, payload, private}]}` (realtime-js's `channel.send` before the
// channel is joined) and `POST /realtime/v1/api/broadcast/<topic>/events/<event>` with the payload
// as the body (`channel.httpSend`). Both answer 202 and relay each message to the topic's joined
// channels as a socket's broadcast would be. The API-key gate of /realtime/v1 runs first; a user
// token in Authorization must verify. A private message goes to the topic's private channels when
// the caller may write broadcasts there (realtime.messages' policies, asked once per topic, as
// hosted Realtime asks; the service_role key needs no policy); else it is dropped, and the answer
// is still 202, as hosted answers. The messages count against the server's realtime limits
// (rate-limits.ts), as a socket's do: past them the request is refused whole, 429 `rate_limited`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { verifyJwt, type VerificationKeys, type VerifiedToken } from '../jwt.ts';
import { exposedHeaders } from '../request-transaction.ts';
import type { Authorize } from './authorization.ts';
import { TOO_MANY_MESSAGES, type ServerRateLimits } from './rate-limits.ts';
import { payloadBytes, REALTIME_MAX_BROADCAST_BYTES, roomOf, type Topics } from './topics.ts';

export interface BroadcastRoutesOptions {
  topics: Topics;
  /** The project secret, and the ES256 public keys of its sessions (jwt.ts). */
  jwtSecret: VerificationKeys;
  /** Realtime Authorization of a private topic (authorization.ts). */
  authorize: Authorize;
  /** The server's rate limits, shared with the sockets (rate-limits.ts). */
  limits: ServerRateLimits;
}

/** Messages one request may carry: each is copied to every channel of its topic. */
export const REALTIME_MAX_HTTP_BROADCAST_MESSAGES = 100;

const message = z.object({
  topic: z.string().min(1),
  event: z.string(),
  payload: z.unknown(),
  private: z.boolean().default(false),
});
const batchBody = z.object({ messages: z.array(message).max(REALTIME_MAX_HTTP_BROADCAST_MESSAGES) });
const eventParams = z.object({ topic: z.string().min(1), event: z.string().min(1) });
const eventQuery = z.object({ private: z.enum(['true', 'false']).optional() }).passthrough();

type Message = z.infer<typeof message>;

function refuse(reply: FastifyReply, status: number, error: string, text: string): FastifyReply {
  return reply.status(status).send({ error, message: text });
}

export async function broadcastRoutes(app: FastifyInstance, options: BroadcastRoutesOptions): Promise<void> {
  const { topics } = options;

  /**
   * Who sends: the token in Authorization, checked as Realtime checks it, or without one the API
   * key (which the gate verified). Undefined after a refusal was sent.
   */
  async function caller(request: FastifyRequest, reply: FastifyReply): Promise<VerifiedToken | undefined> {
    const header = request.headers.authorization;
    const apiKey = request.headers.apikey;
    const token =
      header === undefined ? (Array.isArray(apiKey) ? apiKey[0] : apiKey) : /^Bearer (.+)$/i.exec(header)?.[1];
    try {
      if (token === undefined) throw new Error('not a bearer token');
      return await verifyJwt(token, options.jwtSecret);
    } catch {
      refuse(reply, 401, 'invalid_jwt', 'The Authorization token is not valid.');
      return undefined;
    }
  }

  /** The private topics the caller may broadcast to, asked once per topic. */
  async function writableTopics(
    request: FastifyRequest,
    token: VerifiedToken,
    messages: Message[],
  ): Promise<Set<string>> {
    const topicsAsked = [...new Set(messages.filter((each) => each.private).map((each) => each.topic))];
    if (token.role === 'service_role') return new Set(topicsAsked);
    const headers = exposedHeaders(request.headers);
    const writable = new Set<string>();
    for (const topic of topicsAsked) {
      try {
        const answer = await options.authorize(topic, token, headers, ['broadcast'], 'write');
        if (answer.allowed.get('broadcast') === true) writable.add(topic);
      } catch (error) {
        request.log.error({ err: error, topic }, 'realtime authorization failed');
      }
    }
    return writable;
  }

  /**
   * Takes the request's messages and what they put on the wire (each payload once per receiving
   * channel) from the server's budgets, as the sockets' messages are (rate-limits.ts); all or none.
   */
  function withinServerLimits(messages: Message[]): boolean {
    const bytes = messages.reduce(
      (total, each) =>
        total + payloadBytes(each.payload) * topics.broadcastReceivers(roomOf(`realtime:${each.topic}`, each.private)),
      0,
    );
    if (!options.limits.messages.take(messages.length)) return false;
    if (bytes > 0 && !options.limits.bytes.take(bytes)) {
      options.limits.messages.giveBack(messages.length);
      return false;
    }
    return true;
  }

  /** Checks every message before any is sent: a request is relayed whole or not at all. */
  async function send(
    request: FastifyRequest,
    reply: FastifyReply,
    token: VerifiedToken,
    messages: Message[],
  ): Promise<FastifyReply> {
    if (messages.some((each) => payloadBytes(each.payload) > REALTIME_MAX_BROADCAST_BYTES)) {
      return refuse(
        reply,
        413,
        'payload_too_large',
        `A broadcast payload may be at most ${REALTIME_MAX_BROADCAST_BYTES} bytes.`,
      );
    }
    const writable = await writableTopics(request, token, messages);
    const relayed = messages.filter((each) => !each.private || writable.has(each.topic));
    if (!withinServerLimits(relayed)) {
      return refuse(reply, 429, 'rate_limited', `${TOO_MANY_MESSAGES}: the server's realtime limits are reached.`);
    }
    for (const each of relayed) {
      topics.broadcast(roomOf(`realtime:${each.topic}`, each.private), {
        type: 'broadcast',
        event: each.event,
        payload: each.payload,
      });
    }
    return reply.status(202).send();
  }

  app.post('/api/broadcast', async (request, reply) => {
    const token = await caller(request, reply);
    if (token === undefined) return reply;
    const body = batchBody.safeParse(request.body);
    if (!body.success) {
      return refuse(
        reply,
        400,
        'invalid_body',
        `Expected {"messages": [{"topic", "event", "payload"}]}, at most ${REALTIME_MAX_HTTP_BROADCAST_MESSAGES} messages.`,
      );
    }
    return send(request, reply, token, body.data.messages);
  });

  app.post('/api/broadcast/:topic/events/:event', async (request, reply) => {
    const token = await caller(request, reply);
    if (token === undefined) return reply;
    const params = eventParams.safeParse(request.params);
    const query = eventQuery.safeParse(request.query ?? {});
    if (!params.success || !query.success || request.body === undefined) {
      return refuse(reply, 400, 'invalid_body', 'Expected a JSON payload for /api/broadcast/<topic>/events/<event>.');
    }
    return send(request, reply, token, [
      { ...params.data, payload: request.body, private: query.data.private === 'true' },
    ]);
  });
}

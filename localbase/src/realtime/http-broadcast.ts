// Realtime's HTTP broadcast, for sending without a socket: `POST /realtime/v1/api/broadcast` with
// `{"messages": [{topic, event, payload, private}]}` (realtime-js's `channel.send` before the
// channel is joined) and `POST /realtime/v1/api/broadcast/<topic>/events/<event>` with the payload
// as the body (`channel.httpSend`). Both answer 202 and relay each message to the topic's joined
// channels as a socket's broadcast would be. The API-key gate of /realtime/v1 runs first; a user
// token in Authorization must verify. Private messages are refused, as private joins are.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { verifyJwt, type VerificationKeys } from '../jwt.ts';
import { payloadBytes, REALTIME_MAX_BROADCAST_BYTES, type Topics } from './topics.ts';

export interface BroadcastRoutesOptions {
  topics: Topics;
  /** The project secret, and the ES256 public keys of its sessions (jwt.ts). */
  jwtSecret: VerificationKeys;
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

  /** A token in Authorization is checked, as Realtime checks it; without one the API key speaks. */
  async function tokenRefused(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const header = request.headers.authorization;
    if (header === undefined) return false;
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    try {
      if (token === undefined) throw new Error('not a bearer token');
      await verifyJwt(token, options.jwtSecret);
      return false;
    } catch {
      refuse(reply, 401, 'invalid_jwt', 'The Authorization token is not valid.');
      return true;
    }
  }

  /** Checks every message before any is sent: a request is relayed whole or not at all. */
  function send(reply: FastifyReply, messages: Message[]): FastifyReply {
    if (messages.some((each) => each.private)) {
      return refuse(
        reply,
        403,
        'private_channel',
        'Private channels need Realtime Authorization, which localbase does not provide.',
      );
    }
    if (messages.some((each) => payloadBytes(each.payload) > REALTIME_MAX_BROADCAST_BYTES)) {
      return refuse(
        reply,
        413,
        'payload_too_large',
        `A broadcast payload may be at most ${REALTIME_MAX_BROADCAST_BYTES} bytes.`,
      );
    }
    for (const each of messages) {
      topics.broadcast(`realtime:${each.topic}`, { type: 'broadcast', event: each.event, payload: each.payload });
    }
    return reply.status(202).send();
  }

  app.post('/api/broadcast', async (request, reply) => {
    if (await tokenRefused(request, reply)) return reply;
    const body = batchBody.safeParse(request.body);
    if (!body.success) {
      return refuse(
        reply,
        400,
        'invalid_body',
        `Expected {"messages": [{"topic", "event", "payload"}]}, at most ${REALTIME_MAX_HTTP_BROADCAST_MESSAGES} messages.`,
      );
    }
    return send(reply, body.data.messages);
  });

  app.post('/api/broadcast/:topic/events/:event', async (request, reply) => {
    if (await tokenRefused(request, reply)) return reply;
    const params = eventParams.safeParse(request.params);
    const query = eventQuery.safeParse(request.query ?? {});
    if (!params.success || !query.success || request.body === undefined) {
      return refuse(reply, 400, 'invalid_body', 'Expected a JSON payload for /api/broadcast/<topic>/events/<event>.');
    }
    return send(reply, [{ ...params.data, payload: request.body, private: query.data.private === 'true' }]);
  });
}

// /realtime/v1/websocket: the Phoenix channel subset realtime-js needs for postgres_changes:
// heartbeat, phx_join (replying with server-assigned binding ids), access_token, phx_leave, and
// postgres_changes events carrying `ids`. Broadcast and presence are refused. Both Phoenix
// serializers are spoken, chosen per socket by the URL's `vsn` (frames.ts); the channel semantics
// are the same for both.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { JwtError, verifyJwt, type VerifiedToken } from '../jwt.ts';
import { parseRowFilter } from './filter.ts';
import { codecFor, type Frame, type FrameCodec } from './frames.ts';
import type { Binding, ChannelSubscription, RealtimeHub } from './hub.ts';

export interface RealtimeRoutesOptions {
  hub: RealtimeHub;
  jwtSecret: string;
}

const postgresChange = z.object({
  event: z.string(),
  schema: z.string(),
  table: z.string().optional(),
  filter: z.string().optional(),
});
const joinPayload = z.object({
  config: z.object({ postgres_changes: z.array(postgresChange).default([]) }).passthrough().default({ postgres_changes: [] }),
  access_token: z.string().optional(),
});
const accessTokenPayload = z.object({ access_token: z.string() });
const connectQuery = z.object({ apikey: z.string().min(1) }).passthrough();
const versionQuery = z.object({ vsn: z.unknown().optional() }).passthrough();

/** Largest frame a client may send: joins and tokens are small; this bounds what one frame costs. */
export const REALTIME_MAX_FRAME_BYTES = 1024 * 1024;

export async function realtimeRoutes(app: FastifyInstance, options: RealtimeRoutesOptions): Promise<void> {
  const { hub } = options;

  // An unknown serializer version is refused before the upgrade, as Phoenix refuses it (403).
  const refuseUnknownVersion = async (request: FastifyRequest, reply: FastifyReply) => {
    const { vsn } = versionQuery.parse(request.query ?? {});
    if (!codecFor(vsn)) {
      return reply.status(403).send({ message: `unsupported serializer version ${JSON.stringify(vsn)}: use vsn=1.0.0 or vsn=2.0.0` });
    }
  };

  app.get('/websocket', { websocket: true, preValidation: refuseUnknownVersion }, (socket: WebSocket, request: FastifyRequest) => {
    const chosen = codecFor(versionQuery.parse(request.query ?? {}).vsn);
    if (!chosen) return socket.close(1008, 'unsupported serializer version');
    const codec: FrameCodec = chosen;
    const channels = new Map<string, ChannelSubscription>();
    const send = (frame: Frame) => {
      if (socket.readyState === socket.OPEN) socket.send(codec.encode(frame));
    };
    const reply = (joinRef: string | null, ref: string | null, topic: string, status: 'ok' | 'error', response: object) =>
      send({ joinRef, ref, topic, event: 'phx_reply', payload: { status, response } });

    const query = connectQuery.safeParse(request.query);
    const apiKey = query.success ? verifyJwt(query.data.apikey, options.jwtSecret) : Promise.reject(new JwtError('invalid', 'no apikey'));
    apiKey.catch(() => socket.close(1008, 'invalid or missing apikey'));

    async function verifiedToken(accessToken: string | undefined): Promise<VerifiedToken> {
      return accessToken ? verifyJwt(accessToken, options.jwtSecret) : apiKey;
    }

    function leave(topic: string): void {
      const channel = channels.get(topic);
      if (channel) hub.remove(channel);
      channels.delete(topic);
    }

    async function join(joinRef: string | null, ref: string | null, topic: string, payload: unknown): Promise<void> {
      const parsed = joinPayload.safeParse(payload);
      if (!parsed.success) return reply(joinRef, ref, topic, 'error', { reason: 'invalid join payload' });
      let token: VerifiedToken;
      try {
        token = await verifiedToken(parsed.data.access_token);
      } catch (error) {
        return reply(joinRef, ref, topic, 'error', { reason: `Invalid JWT: ${(error as Error).message}` });
      }
      const bindings: Binding[] = [];
      for (const change of parsed.data.config.postgres_changes) {
        const filter = parseRowFilter(change.filter);
        if (filter instanceof Error) return reply(joinRef, ref, topic, 'error', { reason: filter.message });
        bindings.push({ id: hub.assignBindingId(), event: change.event, schema: change.schema, table: change.table, filter });
      }
      leave(topic);
      const subscription: ChannelSubscription = { topic, joinRef, bindings, token, joinedAt: new Date(), send };
      channels.set(topic, subscription);
      hub.add(subscription);
      // Echo each binding as the client sent it, plus its id: realtime-js compares them field by field.
      const echoed = parsed.data.config.postgres_changes.map((change, index) => ({ ...change, id: bindings[index]?.id }));
      reply(joinRef, ref, topic, 'ok', { postgres_changes: echoed });
      if (bindings.length > 0) {
        send({
          joinRef,
          ref: null,
          topic,
          event: 'system',
          payload: { message: 'Subscribed to PostgreSQL', status: 'ok', extension: 'postgres_changes', channel: topic.replace(/^realtime:/, '') },
        });
      }
    }

    async function handle(raw: string): Promise<void> {
      const frame = codec.decode(raw);
      if (!frame) return;
      const { ref, topic, event, payload } = frame;
      // A channel's later frames name its join; a 1.0.0 client may leave join_ref out.
      const joinRef = frame.joinRef ?? channels.get(topic)?.joinRef ?? null;
      if (topic === 'phoenix' && event === 'heartbeat') return reply(null, ref, topic, 'ok', {});
      switch (event) {
        case 'phx_join':
          return join(joinRef, ref, topic, payload);
        case 'phx_leave':
          leave(topic);
          return reply(joinRef, ref, topic, 'ok', {});
        case 'access_token': {
          const channel = channels.get(topic);
          const parsed = accessTokenPayload.safeParse(payload);
          if (!channel || !parsed.success) return;
          try {
            channel.token = await verifyJwt(parsed.data.access_token, options.jwtSecret);
          } catch {
            // A token that no longer verifies ends the channel, as Realtime does.
            leave(topic);
            send({ joinRef: channel.joinRef, ref: null, topic, event: 'phx_close', payload: {} });
          }
          return;
        }
        default:
          if (ref !== null) {
            reply(joinRef, ref, topic, 'error', { reason: `localbase realtime does not support "${event}" (postgres_changes only)` });
          }
      }
    }

    socket.on('message', (data) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      handle(text).catch((error: unknown) => request.log.error({ err: error }, 'realtime message failed'));
    });
    socket.on('close', () => {
      for (const topic of [...channels.keys()]) leave(topic);
    });
  });
}

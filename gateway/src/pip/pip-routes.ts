// The timer relay: the focus page posts snapshots and listens for actions; the phone companion
// polls the snapshot and posts actions. With pairing on (the default) the page pairs first
// (POST /__pip/pair), then names its channel token on every request, and a phone names the page's
// short code (docs in companion/README.md, "Pairing"); without a live code a phone reads nothing
// and drives nothing. PIP_PAIRING=off, for a single-user machine, shares one open channel.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actionAccepted, pipAction, type ActionAccepted } from '#contracts/phone-actions.ts';
import { CHANNEL_TOKEN_PATTERN, PIP_CHANNEL_HEADER, PIP_CODE_HEADER } from '#contracts/pip-pairing.ts';
import { snapshotStored, timerSnapshot, timerSnapshotInput, type SnapshotStored } from '#contracts/timer-snapshot.ts';
import { GatewayError, parseOrThrow, sendError } from '../http-errors.ts';
import { noBody, nonJson, withErrorBody } from '../route-schemas.ts';
import { RAW_STREAM_HEADERS } from '../security/security-headers.ts';
import { requireBearer, type Caller } from '../auth/bearer.ts';
import type { PhaseEndScheduler } from './phase-end-push.ts';
import { LONG_POLL_MS } from './pip-relay.ts';
import type { RelayChannel, TimerRelay } from './timer-relay.ts';

export interface PipRoutesOptions {
  /** In this process's memory (a server alone) or in the district's shared state. */
  relay: TimerRelay;
  /** On unless PIP_PAIRING=off: per-page channels, reached by phones only with the page's code. */
  pairing?: boolean;
  /** Schedules the phase-end push of a student whose page posts with her access token. */
  phaseEnds?: PhaseEndScheduler;
}

export { PIP_CHANNEL_HEADER, PIP_CODE_HEADER } from '#contracts/pip-pairing.ts';
/** On a GET /api/pip/state?after= answer: this server holds such requests up to this many ms (the long poll). */
export const PIP_WAIT_HEADER = 'x-pip-wait-ms';
/** The updatedAt of the snapshot the phone shows (0 before any page posted). */
const stateQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
});

/** Retry-After of an address over its event-stream limit: streams close when their pages do. */
const STREAM_RETRY_AFTER_S = 10;

// The phone companion runs in its own WebView origin and calls the two /api/pip routes across
// origins; they carry no credentials (the pairing code is the phone's only key), so any origin may
// call them. With pairing on, the phone sends its code in a header, which the preflight must allow.
// With PIP_PAIRING=off the relay is open on the LAN (SECURITY.md says so).
const companionCors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-expose-headers': PIP_WAIT_HEADER,
  'access-control-max-age': '600',
};
const pairedCompanionCors = { ...companionCors, 'access-control-allow-headers': `content-type, ${PIP_CODE_HEADER}` };

const channelToken = z.string().regex(CHANNEL_TOKEN_PATTERN);
const pairRequest = z.strictObject({ channel: channelToken.optional() }).optional();
const eventsQuery = z.object({ channel: channelToken.optional() });

const pairAnswer = z.union([
  z.object({
    pairing: z.literal('on'),
    code: z.string().describe('The code the focus page shows; a phone sends it in x-pip-code.'),
    channel: z.string().describe("The page's channel token, for x-pip-channel and ?channel="),
    idleTimeoutMs: z.number(),
  }),
  z.object({ pairing: z.literal('off') }),
]);
// Declared leniently: the handlers read them (a query they cannot read is a plain poll, and the
// channel matters only with pairing on).
const stateQueryDeclared = z.object({ after: z.string().optional().describe('The updatedAt the phone shows.') });
const eventsQueryDeclared = z.object({ channel: z.string().optional().describe("The page's channel token.") });

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function pairingRequired(who: 'page' | 'phone'): GatewayError {
  return who === 'page'
    ? new GatewayError(
        401,
        'pairing_required',
        `Pairing is on: pair with POST /__pip/pair and send the channel in ${PIP_CHANNEL_HEADER} (or ?channel= for the event stream).`,
      )
    : new GatewayError(
        401,
        'pairing_required',
        `Pairing is on: send the code shown on the focus page in the ${PIP_CODE_HEADER} header.`,
      );
}

/** The student a snapshot post names (Authorization: Bearer), or undefined: the relay itself needs none. */
function namedStudent(request: FastifyRequest): Caller | undefined {
  if (!request.headers.authorization) return undefined;
  try {
    return requireBearer(request);
  } catch {
    return undefined;
  }
}

const pipRoutes: FastifyPluginAsyncZod<PipRoutesOptions> = async (app, { relay, pairing = false, phaseEnds }) => {
  const cors = pairing ? pairedCompanionCors : companionCors;

  /** The channel of the focus page making this request (its token), or the shared one. */
  async function pageChannel(token: string | undefined): Promise<RelayChannel> {
    if (!pairing) return relay.shared;
    if (!token) throw pairingRequired('page');
    const found = channelToken.safeParse(token).success ? await relay.pageChannel(token) : undefined;
    if (!found)
      throw new GatewayError(
        401,
        'pairing_channel_unknown',
        'This channel is not paired (it expired or the server restarted): pair again with POST /__pip/pair.',
      );
    return found;
  }

  /** The channel of the page the phone paired with (noting the phone there); refuses a missing or wrong code. */
  async function phoneChannel(request: FastifyRequest, reply: FastifyReply): Promise<RelayChannel> {
    const channel = await phoneChannelOf(request, reply);
    channel.notePhone();
    return channel;
  }

  async function phoneChannelOf(request: FastifyRequest, reply: FastifyReply): Promise<RelayChannel> {
    if (!pairing) return relay.shared;
    const attempt = await relay.phoneAttempt(singleHeader(request, PIP_CODE_HEADER), request.ip);
    if ('channel' in attempt) return attempt.channel;
    switch (attempt.refused) {
      case 'missing':
        throw pairingRequired('phone');
      case 'unknown':
        throw new GatewayError(
          401,
          'pairing_code_invalid',
          'No focus page shows this code: check the code on the focus page, which changes when the page is closed for a while.',
        );
      case 'address_locked':
      case 'server_paused': {
        const retryAfterS = Math.ceil(attempt.retryAfterMs / 1000);
        reply.header('retry-after', String(retryAfterS));
        throw new GatewayError(
          429,
          'rate_limited',
          attempt.refused === 'address_locked'
            ? 'Too many wrong pairing codes from this address; try again later.'
            : 'Too many wrong pairing codes reached this server; phones paired before keep working, a new one can pair later.',
          { scope: attempt.refused === 'address_locked' ? 'address' : 'server', retry_after_s: retryAfterS },
        );
      }
    }
  }

  // The channel a request reaches, found before its body meets the schema: a caller without a
  // pairing is told so, never what the body lacks (and a wrong code counts once).
  const channels = new WeakMap<FastifyRequest, RelayChannel>();
  const channelOf = (request: FastifyRequest) => channels.get(request) ?? relay.shared;

  const preflight = { schema: { response: withErrorBody({ 204: noBody('CORS preflight of the phone remote.') }) } };
  for (const url of ['/api/pip/state', '/api/pip/action']) {
    app.options(url, preflight, async (_request, reply) => reply.headers(cors).code(204).send());
  }

  const pairSchema = { body: pairRequest, response: withErrorBody({ 200: pairAnswer, 201: pairAnswer }) };
  app.post('/__pip/pair', { bodyLimit: 1024, schema: pairSchema }, async (request, reply) => {
    const body = request.body;
    if (!pairing) return { pairing: 'off' as const };
    const paired = await relay.pair(body?.channel, request.ip);
    if ('refused' in paired) {
      if (paired.refused === 'server_full')
        return sendError(
          reply,
          503,
          'pairing_full',
          'Every pairing slot holds an open focus page; close one and try again.',
        );
      const retryAfterS = Math.ceil(paired.retryAfterMs / 1000);
      reply.header('retry-after', String(retryAfterS));
      return sendError(
        reply,
        429,
        'rate_limited',
        `This address already has ${paired.held} focus pages paired, each with an open stream; close one and try again.`,
        {
          retry_after_s: retryAfterS,
        },
      );
    }
    const { code, token } = paired;
    return reply
      .code(paired.reused ? 200 : 201)
      .send({ pairing: 'on' as const, code, channel: token, idleTimeoutMs: relay.idleTimeoutMs });
  });

  const postState = {
    bodyLimit: 16 * 1024,
    preValidation: async (request: FastifyRequest) => {
      channels.set(request, await pageChannel(singleHeader(request, PIP_CHANNEL_HEADER)));
    },
    schema: { body: timerSnapshotInput, response: withErrorBody({ 200: snapshotStored }) },
  };
  app.post('/__pip/state', postState, async (request) => {
    const snapshot = await channelOf(request).storeSnapshot(request.body);
    const student = phaseEnds ? namedStudent(request) : undefined;
    if (student) phaseEnds?.note(student, snapshot);
    const stored: SnapshotStored = { ok: true, updatedAt: snapshot.updatedAt };
    return stored;
  });

  const getState = { schema: { querystring: stateQueryDeclared, response: withErrorBody({ 200: timerSnapshot }) } };
  app.get('/api/pip/state', getState, async (request, reply) => {
    reply.headers(cors).header('cache-control', 'no-store');
    const channel = await phoneChannel(request, reply);
    // A phone that names the snapshot it shows waits for a newer one; a query this server cannot read is a plain poll.
    const query = stateQuery.safeParse(request.query);
    const after = query.success ? query.data.after : undefined;
    if (after !== undefined) {
      await channel.waitForNewer(Number(after), LONG_POLL_MS);
      reply.header(PIP_WAIT_HEADER, String(LONG_POLL_MS));
    }
    return await channel.latestSnapshot();
  });

  const postAction = {
    bodyLimit: 4 * 1024,
    preValidation: async (request: FastifyRequest, reply: FastifyReply) => {
      reply.headers(cors);
      channels.set(request, await phoneChannel(request, reply));
    },
    schema: { body: pipAction, response: withErrorBody({ 202: actionAccepted }) },
  };
  app.post('/api/pip/action', postAction, async (request, reply) => {
    const action = request.body;
    const { event, delivered } = await channelOf(request).relayPipAction(action);
    const accepted: ActionAccepted = { accepted: true, delivered, id: event.id };
    return reply.code(202).send(accepted);
  });

  const events = {
    schema: {
      querystring: eventsQueryDeclared,
      response: withErrorBody({ 200: nonJson('text/event-stream', 'hello, then pip-action events (docs/api.md).') }),
    },
  };
  app.get('/__pip/events', events, async (request, reply) => {
    // Refusals are answered before the stream is taken over, as ordinary JSON errors.
    const token = pairing ? parseOrThrow(eventsQuery, request.query).channel : undefined;
    const channel = await pageChannel(token);
    const release = relay.admitStream(request.ip);
    if (!release) {
      reply.header('retry-after', String(STREAM_RETRY_AFTER_S));
      throw new GatewayError(
        429,
        'rate_limited',
        `This address already has ${relay.maxStreamsPerAddress} open event streams; close a focus page and try again.`,
        {
          retry_after_s: STREAM_RETRY_AFTER_S,
          limit: relay.maxStreamsPerAddress,
        },
      );
    }
    reply.raw.once('close', release);
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      ...RAW_STREAM_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    stream.socket?.setNoDelay(true);
    // Ask EventSource to come back after 2 s when the connection drops.
    stream.write('retry: 2000\n\n');
    request.raw.on('close', () => stream.end());
    // A paired page's idle time counts from when its last stream closed.
    try {
      await channel.subscribe(stream, () => {
        if (token) relay.pageLeft(token);
      });
    } catch (error) {
      // The stream is already answered 200: end it, and the page's EventSource comes back.
      request.log.warn({ err: error }, 'timer relay: an event stream could not be opened');
      stream.end();
    }
  });
};

export default pipRoutes;

// /__backend/*: every method streamed to the backend (HTTP, and the WebSocket upgrade for realtime),
// with the caller's JWT and apikey, or with the service key when the caller holds a valid admin
// cookie whose account still stands (admin-standing.ts, asked on every request). Hop-by-hop headers
// and the caller's cookies never reach the backend. The database's audit log names the console's
// admin from `x-studyhall-console-admin` on service-role requests, so that header is the gateway's
// alone: whatever a caller sends under that name is dropped, and an admin's request carries her
// verified session's subject.
//
// Decisions (intercepts, limits, storage headers) are taken on the decided path
// (security/request-path.ts); the raw path is what is forwarded. Every call has a deadline:
// the backend must start answering within `responseTimeoutMs` of going quiet (504 backend_timeout),
// storage transfers get the longer `storageIdleTimeoutMs`, and a realtime socket is closed after
// `socketIdleTimeoutMs` without a message either way (and dropped once more than
// SOCKET_BACKLOG_BYTES wait to be passed on in either direction). Node's HTTP client carries the requests
// (not undici): it hands over a response the backend sends before it has read the whole body, so a
// backend's own 413 reaches the caller instead of a broken pipe.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import httpProxy from '@fastify/http-proxy';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { REALTIME_READ_BUDGET, socketReadBudget, type ReadBudget } from './socket-read-budget.ts';
import { adminSessionFromCookieHeader, type AdminGate } from '../admin/admin-cookie.ts';
import { standingUnknown, type AdminStanding } from '../admin/admin-standing.ts';
import { CONSOLE_ADMIN_HEADER } from '../admin/console-audit.ts';
import { sendError, sendPayloadTooLarge } from '../http-errors.ts';
import {
  isPasswordGrant,
  passwordGrantAccount,
  sendAccountLocked,
  type AccountLoginLimiter,
  type AttemptSettler,
} from '../security/account-login-limits.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { decideUrl, pathUnder, type DecidedUrl } from '../security/request-path.ts';
import { RAW_STREAM_HEADERS, storageObjectHeaders } from '../security/security-headers.ts';
import type { EndpointGuard } from '../push/web-push-sender.ts';
import { BodyTooLargeError, limitBodyStream } from './body-size-limit.ts';
import { refusedPushRegistration, REGISTER_TOKEN_PATH } from './push-token-check.ts';
import { classifyEdgePath, PAYMENT_STUB } from './edge-intercepts.ts';
import { wildcardParams } from '../route-schemas.ts';

export const BACKEND_PREFIX = '/__backend';

/** The backend must answer (or keep sending) within these; see the header comment. */
export const PROXY_TIMEOUTS = {
  /** The realtime WebSocket handshake (HTTP requests: connecting counts against responseTimeoutMs). */
  connectTimeoutMs: 2_000,
  responseTimeoutMs: 10_000,
  storageIdleTimeoutMs: 120_000,
  socketIdleTimeoutMs: 120_000,
};

export interface BackendProxyOptions {
  backendUrl: string;
  anonKey: string;
  serviceRoleKey: string | undefined;
  adminGate: AdminGate;
  /** Rechecks an admin cookie's account before the request runs as the service role. */
  adminStanding: AdminStanding;
  /** The per-account budget of failed passwords, shared with POST /__auth/login. */
  accountLogins: AccountLoginLimiter;
  /** Where a registered push endpoint may point (the push worker's own rule). */
  pushEndpoints: EndpointGuard;
  timeouts?: Partial<typeof PROXY_TIMEOUTS>;
  bodyLimitBytes?: number;
  jsonBodyLimitBytes?: number;
}

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** Removes hop-by-hop headers, including every header the Connection header names (RFC 9110 7.6.1). */
export function withoutHopByHop<T extends Record<string, unknown>>(headers: T): T {
  const listed =
    typeof headers.connection === 'string'
      ? headers.connection.split(',').map((name) => name.trim().toLowerCase())
      : [];
  const kept = { ...headers };
  for (const name of [...HOP_BY_HOP, ...listed]) delete kept[name];
  return kept;
}

export interface ProxyCredentials {
  anonKey: string;
  serviceRoleKey: string | undefined;
  /** The subject of the caller's admin session, verified for this request; undefined for anyone else. */
  adminSubject: string | undefined;
}

/**
 * The headers the backend sees: credentials and the console admin's name decided here, hop-by-hop
 * headers, cookies and a caller's own console admin header removed.
 */
export function backendRequestHeaders(
  headers: IncomingHttpHeaders,
  credentials: ProxyCredentials,
): IncomingHttpHeaders {
  const forwarded = withoutHopByHop(headers);
  delete forwarded.cookie;
  delete forwarded[CONSOLE_ADMIN_HEADER];
  if (credentials.adminSubject !== undefined && credentials.serviceRoleKey) {
    forwarded.apikey = credentials.serviceRoleKey;
    forwarded.authorization = `Bearer ${credentials.serviceRoleKey}`;
    forwarded[CONSOLE_ADMIN_HEADER] = credentials.adminSubject;
  } else if (!forwarded.apikey) {
    forwarded.apikey = credentials.anonKey;
  }
  return forwarded;
}

/** The decided path under /__backend of a request (`/auth/v1/token`), or '/' for the prefix itself. */
export function backendPathOf(request: { url: string }): string {
  return pathUnder(BACKEND_PREFIX, decideUrl(request.url).path) ?? '/';
}

function isPasswordAttempt(method: string, decided: DecidedUrl): boolean {
  return (
    method === 'POST' && pathUnder(BACKEND_PREFIX, decided.path) === '/auth/v1/token' && isPasswordGrant(decided.query)
  );
}

/**
 * Reads the whole (already size-limited) body of a request the proxy would otherwise stream, and
 * puts the same bytes back as a stream: reply-from forwards a stream as it is (a Buffer it would
 * re-encode as JSON).
 */
async function takeWholeBody(request: FastifyRequest): Promise<Buffer> {
  const source = request.body as NodeJS.ReadableStream | undefined;
  if (!source || typeof source.pipe !== 'function') return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  const body = Buffer.concat(chunks);
  request.body = Readable.from([body]);
  return body;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Settles the password grant this request carries through the proxy, by the backend's answer. */
    passwordAttempt?: AttemptSettler | undefined;
    /** The subject of the admin session this proxied request runs as (the service role); set by a hook. */
    backendAdminSubject?: string | undefined;
  }
}

const isStoragePath = (pathUnderBackend: string) => pathUnderBackend.startsWith('/storage/v1/');
const isJson = (contentType: string | undefined) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(contentType ?? '');

type ProxyFailure = Error & { code?: string; statusCode?: number; cause?: unknown };

function isTimeout(error: ProxyFailure): boolean {
  return (
    error.statusCode === 504 ||
    error.code === 'FST_REPLY_FROM_GATEWAY_TIMEOUT' ||
    error.code === 'FST_REPLY_FROM_HTTP_REQUEST_TIMEOUT'
  );
}

/** Closes a proxied realtime socket pair after `idleMs` without a message in either direction. */
function idleSocketCloser(idleMs: number) {
  const timers = new WeakMap<WebSocket, NodeJS.Timeout>();
  const arm = (source: WebSocket) => {
    clearTimeout(timers.get(source));
    const timer = setTimeout(() => source.close(1001, 'idle timeout'), idleMs);
    timer.unref();
    timers.set(source, timer);
  };
  return {
    onConnect: (_context: unknown, source: WebSocket) => {
      arm(source);
      source.once('close', () => clearTimeout(timers.get(source)));
    },
    onIncomingMessage: (_context: unknown, source: WebSocket) => arm(source),
    onOutgoingMessage: (_context: unknown, source: WebSocket) => arm(source),
  };
}

/**
 * What the proxy may hold for one realtime socket: frames from the client while the backend
 * connection is still opening (the proxy queues them until it is open), and frames for a client
 * that does not read them (the proxy writes each one as the backend sends it, whether or not the
 * client keeps up). Past it the client's socket is dropped, and the backend's with it.
 */
export const SOCKET_BACKLOG_BYTES = 16 * 1024 * 1024;

function byteLength(data: unknown): number {
  if (Array.isArray(data)) return data.reduce((total: number, part: Buffer) => total + part.length, 0);
  if (data instanceof ArrayBuffer) return data.byteLength;
  return Buffer.isBuffer(data) ? data.length : 0;
}

/**
 * Drops a proxied realtime socket whose backlog in either direction passes `maxBytes`, and a client
 * still sending once the backend closed its side (the backend ended it, for instance for its rate):
 * the close handshake would have the proxy read everything the client had queued before its close.
 */
function socketBacklogBound(maxBytes: number) {
  const queuedWhileOpening = new WeakMap<WebSocket, number>();
  return {
    onIncomingMessage: (_context: unknown, source: WebSocket, target: WebSocket, message: { data: unknown }) => {
      if (target.readyState === target.CLOSING || target.readyState === target.CLOSED) return source.terminate();
      if (target.readyState !== target.CONNECTING) return;
      const queued = (queuedWhileOpening.get(source) ?? 0) + byteLength(message.data);
      queuedWhileOpening.set(source, queued);
      if (queued > maxBytes) source.terminate();
    },
    onOutgoingMessage: (_context: unknown, source: WebSocket) => {
      // No close handshake: it would wait for a client that does not read.
      if (source.bufferedAmount > maxBytes) source.terminate();
    },
  };
}

function realtimeSocketHooks(idleMs: number, backlogBytes: number, readBudget: ReadBudget) {
  const idle = idleSocketCloser(idleMs);
  const backlog = socketBacklogBound(backlogBytes);
  const reads = socketReadBudget(readBudget);
  return {
    onConnect: (context: unknown, source: WebSocket, target: WebSocket) => {
      // The client left (or was dropped above) while the backend connection was opening: the
      // proxy closes only open sockets, so this one would stay, and send what was queued for it.
      if (source.readyState !== source.OPEN) {
        target.close(1001, 'client gone');
        return;
      }
      idle.onConnect(context, source);
      reads.onConnect(source);
    },
    onIncomingMessage: (context: unknown, source: WebSocket, target: WebSocket, message: { data: unknown }) => {
      idle.onIncomingMessage(context, source);
      backlog.onIncomingMessage(context, source, target, message);
    },
    onOutgoingMessage: (context: unknown, source: WebSocket) => {
      idle.onOutgoingMessage(context, source);
      backlog.onOutgoingMessage(context, source);
    },
    onDisconnect: (_context: unknown, source: WebSocket) => reads.onDisconnect(source),
  };
}

const backendProxy: FastifyPluginAsync<BackendProxyOptions> = async (app, options) => {
  const timeouts = { ...PROXY_TIMEOUTS, ...options.timeouts };
  const limits = {
    any: options.bodyLimitBytes ?? BODY_LIMITS.proxy,
    json: options.jsonBodyLimitBytes ?? BODY_LIMITS.proxyJson,
  };
  const bodyLimitOf = (request: FastifyRequest) =>
    isJson(request.headers['content-type']) ? Math.min(limits.json, limits.any) : limits.any;
  const credentials = (request: Pick<FastifyRequest, 'backendAdminSubject'>): ProxyCredentials => ({
    anonKey: options.anonKey,
    serviceRoleKey: options.serviceRoleKey,
    adminSubject: request.backendAdminSubject,
  });

  // An admin cookie turns the request into the service role's, only while its account still stands
  // (asked now, for this request). A lost standing ends the account's sessions and the request goes
  // on with the caller's own credentials; a standing the backend could not confirm gets none.
  app.addHook('onRequest', async (request, reply) => {
    const session = await adminSessionFromCookieHeader(options.adminGate, request.headers.cookie);
    if (!session) return;
    const verdict = await options.adminStanding.verdict(session, request.log);
    if (verdict === 'stands') request.backendAdminSubject = session.subject;
    if (verdict === 'unknown') {
      const { code, message, statusCode } = standingUnknown();
      return sendError(reply, statusCode, code, message);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    const declaredLength = Number(request.headers['content-length'] ?? 0);
    const bodyLimit = bodyLimitOf(request);
    if (declaredLength > bodyLimit) return sendPayloadTooLarge(reply.header('connection', 'close'), bodyLimit);
    const intercept = classifyEdgePath(backendPathOf(request));
    if (intercept?.kind === 'disabled') {
      return sendError(
        reply,
        502,
        'edge_function_disabled',
        `The ${intercept.functionName} edge function is not served locally; the app uses the database functions instead.`,
      );
    }
    if (intercept?.kind === 'payment_stub') return reply.code(200).send(PAYMENT_STUB);
  });

  // A body without Content-Length (chunked) is counted as it streams through.
  app.addHook('preHandler', async (request) => {
    if (request.body && typeof (request.body as NodeJS.ReadableStream).pipe === 'function') {
      request.body = limitBodyStream(request.body as NodeJS.ReadableStream, bodyLimitOf(request));
    }
  });

  // A password grant is read whole (it is small) to learn the account it names: a locked account
  // is refused here, and the backend's answer is counted below. The same bytes are then forwarded.
  app.addHook('preHandler', async (request, reply) => {
    if (!isPasswordAttempt(request.method, decideUrl(request.url))) return;
    const body = await takeWholeBody(request);
    const account = passwordGrantAccount(body);
    if (!account) return;
    const attempt = await options.accountLogins.begin(account);
    if ('lock' in attempt) return sendAccountLocked(reply, attempt.lock);
    request.passwordAttempt = attempt.settle;
  });

  // A device token registered through the proxy must name a public push endpoint.
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || backendPathOf(request) !== REGISTER_TOKEN_PATH) return;
    const body = await takeWholeBody(request);
    const refused = await refusedPushRegistration(body, options.pushEndpoints);
    if (refused)
      return sendError(
        reply,
        400,
        'push_endpoint_refused',
        `This push endpoint is not allowed: ${refused.replace(/^endpoint_refused: /, '')}.`,
      );
  });

  // GoTrue answers a wrong password with 400 invalid_grant (localbase: 400 invalid_credentials).
  app.addHook('onResponse', async (request, reply) => {
    request.passwordAttempt?.(reply.statusCode === 400 || reply.statusCode === 401);
  });
  // A caller that hangs up before the answer learns nothing from it: the attempt is let go uncounted.
  app.addHook('onRequestAbort', async (request) => {
    request.passwordAttempt?.(false);
  });

  /**
   * A request the backend never answered: too large to send (413), too slow (504), cut off while
   * the body was still being sent (502 backend_closed_upload), or unreachable (502). The HTTP client
   * may report one failure twice (the request and its body stream): the first one answers.
   */
  const answerFailure = (reply: FastifyReply, error: ProxyFailure) => {
    if (reply.sent) return;
    if (error.cause instanceof BodyTooLargeError)
      return sendPayloadTooLarge(reply.header('connection', 'close'), error.cause.limitBytes);
    reply.request.log.warn({ err: error }, 'backend request failed');
    if (isTimeout(error)) return sendError(reply, 504, 'backend_timeout', 'The backend did not answer in time.');
    const code = ((error.cause ?? error) as { code?: string }).code;
    const { headers } = reply.request;
    const hadBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
    if (hadBody && (code === 'EPIPE' || code === 'ECONNRESET' || !reply.request.raw.complete)) {
      return sendError(
        reply.header('connection', 'close'),
        502,
        'backend_closed_upload',
        'The backend closed the connection before it had read the whole request body.',
      );
    }
    return sendError(reply, 502, 'backend_unavailable', 'The backend did not answer.');
  };

  const wsClientOptions = {
    handshakeTimeout: timeouts.connectTimeoutMs,
    // realtime-js sends the apikey in the query string and the user's token in phx_join; the
    // headers only matter for the admin's service key and name. Nothing else the caller sent passes.
    rewriteRequestHeaders: (headers: Record<string, unknown>, request: FastifyRequest) => {
      const { apikey, authorization } = request.headers;
      const forwarded = backendRequestHeaders(
        { ...(apikey ? { apikey } : {}), ...(authorization ? { authorization } : {}) },
        credentials(request),
      );
      return { ...headers, ...forwarded };
    },
  };

  // The proxy streams bodies as they come; the gateway's own JSON parser is for its own routes.
  app.removeContentTypeParser('application/json');
  // Its routes answer whatever the backend does (docs/localbase.md describes that API): they are
  // left out of the OpenAPI document on purpose, and declare only the path they forward.
  app.addHook('onRoute', (route) => {
    route.schema = { hide: true, ...(route.url.endsWith('*') ? { params: wildcardParams } : {}) };
  });
  await app.register(httpProxy, {
    upstream: options.backendUrl,
    prefix: BACKEND_PREFIX,
    websocket: true,
    http: {
      agentOptions: { keepAlive: true, maxSockets: 256, maxFreeSockets: 64 },
      // reply-from turns certificate checks off unless told otherwise: a hosted backend is https.
      requestOptions: { timeout: timeouts.responseTimeoutMs, rejectUnauthorized: true },
    },
    handler: (request: FastifyRequest, reply, dest, replyOptions) =>
      reply.from(dest, {
        ...replyOptions,
        timeout: isStoragePath(backendPathOf(request)) ? timeouts.storageIdleTimeoutMs : timeouts.responseTimeoutMs,
      }),
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => backendRequestHeaders(headers, credentials(request)),
      rewriteHeaders: (headers, request) => {
        const kept = withoutHopByHop(headers);
        const pathUnderBackend = request ? backendPathOf(request) : '/';
        // Whatever the backend says, nothing it serves runs on the app's origin (an edge function's
        // HTML included): the API policy everywhere, sandboxed downloads for storage.
        return { ...kept, ...(isStoragePath(pathUnderBackend) ? storageObjectHeaders(kept) : RAW_STREAM_HEADERS) };
      },
      onError: (reply, { error }) => {
        answerFailure(reply as unknown as FastifyReply, error as ProxyFailure);
      },
    },
    wsHooks: realtimeSocketHooks(timeouts.socketIdleTimeoutMs, SOCKET_BACKLOG_BYTES, REALTIME_READ_BUDGET),
    // http-proxy honours wsClientOptions.rewriteRequestHeaders; its type declarations omit it.
    wsClientOptions,
  });
};

export default backendProxy;

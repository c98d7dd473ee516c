// /__backend/*: every method streamed to the backend (HTTP through undici, and the WebSocket
// upgrade for realtime), with the caller's JWT and apikey, or with the service key when the caller
// holds a valid admin cookie. Hop-by-hop headers and the caller's cookies never reach the backend.
import type { IncomingHttpHeaders } from 'node:http';
import httpProxy from '@fastify/http-proxy';
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import { adminSubjectFromCookieHeader, type AdminGate } from '../admin/admin-cookie.ts';
import { errorBody, GatewayError, sendError } from '../http-errors.ts';
import { classifyEdgePath, isCredentialAttempt, PAYMENT_STUB } from './edge-intercepts.ts';

export const BACKEND_PREFIX = '/__backend';

export interface BackendProxyOptions {
  backendUrl: string;
  anonKey: string;
  serviceRoleKey: string | undefined;
  adminGate: AdminGate;
  connectTimeoutMs?: number;
  /** Password grants and signups per client address (default: 10 per minute, as /__auth). */
  credentialRateLimit?: { max: number; windowMs: number };
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Removes hop-by-hop headers, including every header the Connection header names (RFC 9110 7.6.1). */
export function withoutHopByHop<T extends Record<string, unknown>>(headers: T): T {
  const listed = typeof headers.connection === 'string' ? headers.connection.split(',').map((name) => name.trim().toLowerCase()) : [];
  const kept = { ...headers };
  for (const name of [...HOP_BY_HOP, ...listed]) delete kept[name];
  return kept;
}

/** The headers the backend sees: credentials decided here, hop-by-hop and cookies removed. */
export function backendRequestHeaders(
  headers: IncomingHttpHeaders,
  credentials: { anonKey: string; serviceRoleKey: string | undefined; asAdmin: boolean },
): IncomingHttpHeaders {
  const forwarded = withoutHopByHop(headers);
  delete forwarded.cookie;
  if (credentials.asAdmin && credentials.serviceRoleKey) {
    forwarded.apikey = credentials.serviceRoleKey;
    forwarded.authorization = `Bearer ${credentials.serviceRoleKey}`;
  } else if (!forwarded.apikey) {
    forwarded.apikey = credentials.anonKey;
  }
  return forwarded;
}

const backendProxy: FastifyPluginAsync<BackendProxyOptions> = async (app, options) => {
  const credentials = (request: { headers: IncomingHttpHeaders }) => ({
    anonKey: options.anonKey,
    serviceRoleKey: options.serviceRoleKey,
    asAdmin: adminSubjectFromCookieHeader(options.adminGate, request.headers.cookie) !== undefined,
  });

  const wsHeaderRewrite = {
    handshakeTimeout: options.connectTimeoutMs ?? 2_000,
    // realtime-js sends the apikey in the query string and the user's token in phx_join; the
    // headers only matter for the admin's service key.
    rewriteRequestHeaders: (headers: Record<string, unknown>, request: { headers: IncomingHttpHeaders }) => {
      const { apikey, authorization } = request.headers;
      const forwarded = backendRequestHeaders({ ...(apikey ? { apikey } : {}), ...(authorization ? { authorization } : {}) }, credentials(request));
      return { ...headers, ...forwarded };
    },
  };

  const limit = options.credentialRateLimit ?? { max: 10, windowMs: 60_000 };
  await app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => request.ip,
    allowList: (request) => !isCredentialAttempt(request.method, request.url.slice(BACKEND_PREFIX.length)),
    errorResponseBuilder: (_request, context) =>
      new GatewayError(429, 'rate_limited', `Too many attempts from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`, {
        retry_after_s: Math.ceil(context.ttl / 1000),
      }),
  });

  app.addHook('onRequest', async (request, reply) => {
    const intercept = classifyEdgePath(request.url.slice(BACKEND_PREFIX.length));
    if (intercept?.kind === 'disabled') {
      return sendError(reply, 502, 'edge_function_disabled', `The ${intercept.functionName} edge function is not served locally; the app uses the database functions instead.`);
    }
    if (intercept?.kind === 'payment_stub') return reply.code(200).send(PAYMENT_STUB);
  });

  await app.register(httpProxy, {
    upstream: options.backendUrl,
    prefix: BACKEND_PREFIX,
    websocket: true,
    undici: { connectTimeout: options.connectTimeoutMs ?? 2_000 },
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => backendRequestHeaders(headers, credentials(request)),
      rewriteHeaders: (headers) => withoutHopByHop(headers),
      onError: (reply, { error }) => {
        reply.request.log.warn({ err: error }, 'backend request failed');
        reply.code(502).type('application/json; charset=utf-8').send(errorBody('backend_unavailable', 'The backend did not answer.'));
      },
    },
    // http-proxy honours wsClientOptions.rewriteRequestHeaders; its type declarations omit it.
    wsClientOptions: wsHeaderRewrite,
  });
};

export default backendProxy;

// The same-origin guard and the strict reading of "loopback".
//
// A browser attaches some credentials by itself: the admin cookie, and, for a page on this computer,
// the loopback address. A request those credentials authorise must come from a page of this server,
// or any site the student visits could make the browser send it (cross-site request forgery), and a
// site whose name resolves to this computer could pose as it (DNS rebinding). So:
// - same origin: an Origin header, when sent, names this server (the Host the request was sent to),
//   and a Sec-Fetch-Site header, when sent, says `same-origin` (or `none`: typed by the user).
//   Requests without either come from programs, not pages, and carry no ambient credential of a page.
// - loopback: the socket is 127.0.0.1 or ::1, no proxy header of any kind (a proxy on this machine
//   would relay someone else), the Host is a loopback name or address, and the request is same origin.
//
// Refusals are 403 `csrf_refused` (JSON). `installSameOriginGuard` puts the guard in front of every
// request an admin cookie rides on and every route marked `ambientAuthorisation`; a route family
// with its own needs can call `requireSameOrigin` (a hook) or `refuseCrossSite` itself.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { carriesAdminCookie } from '../admin/admin-cookie.ts';
import { sendError } from '../http-errors.ts';
import { decideUrl, pathUnder } from './request-path.ts';

const LOOPBACK_SOCKETS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Headers a proxy adds to say who the real client is (RFC 7239 and every de-facto variant). */
const FORWARDING_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'client-ip',
  'true-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-originating-ip',
  'x-remote-ip',
  'x-remote-addr',
  'x-original-host',
  'x-host',
]);

type HeaderSource = { headers: IncomingHttpHeaders };

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The name of the first proxy header present, if any. */
export function forwardingHeaderIn(headers: IncomingHttpHeaders): string | undefined {
  return Object.keys(headers).find((name) => {
    const lower = name.toLowerCase();
    return FORWARDING_HEADERS.has(lower) || lower.startsWith('x-forwarded-');
  });
}

/** `host[:port]` lower-cased, as an origin would spell it; undefined when it is not a valid authority. */
function normaliseAuthority(authority: string): string | undefined {
  try {
    const url = new URL(`http://${authority}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return url.host;
  } catch {
    return undefined;
  }
}

/** localhost, 127.0.0.1 or [::1], with any port. */
export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const authority = normaliseAuthority(hostHeader);
  if (!authority) return false;
  return LOOPBACK_HOSTNAMES.has(new URL(`http://${authority}`).hostname);
}

/** Why this request is not same-origin, or undefined when it is (or is no page's request at all). */
export function crossSiteReason(request: HeaderSource): string | undefined {
  const fetchSite = firstHeader(request.headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return `Sec-Fetch-Site is ${fetchSite}`;
  }
  const origin = firstHeader(request.headers, 'origin')?.trim();
  if (origin === undefined) return undefined;
  let originAuthority: string;
  try {
    const parsed = new URL(origin);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return `Origin ${origin} is not a web page of this server`;
    originAuthority = parsed.host;
  } catch {
    return `Origin ${origin.slice(0, 100)} is not this server`; // "null" and anything unparsable
  }
  const host = normaliseAuthority(firstHeader(request.headers, 'host') ?? '');
  if (!host || host !== originAuthority) return `Origin ${origin.slice(0, 100)} is not this server`;
  return undefined;
}

/** Why this request does not count as loopback, or undefined when it does. */
export function notLoopbackReason(
  request: HeaderSource & { socket: { remoteAddress?: string | undefined } },
): string | undefined {
  const address = request.socket.remoteAddress;
  if (!address || !LOOPBACK_SOCKETS.has(address)) return 'the connection does not come from this computer';
  const forwarded = forwardingHeaderIn(request.headers);
  if (forwarded) return `the request carries the proxy header ${forwarded}`;
  if (!isLoopbackHost(firstHeader(request.headers, 'host'))) return 'the Host header does not name this computer';
  return crossSiteReason(request);
}

export function isLoopbackRequest(request: FastifyRequest): boolean {
  return notLoopbackReason({ headers: request.headers, socket: request.socket }) === undefined;
}

/** Answers 403 csrf_refused and returns true when the request is cross-site; false otherwise. */
export function refuseCrossSite(request: FastifyRequest, reply: FastifyReply): boolean {
  const reason = crossSiteReason(request);
  if (reason === undefined) return false;
  sendError(
    reply,
    403,
    'csrf_refused',
    `Refused: this request was sent by another site (${reason}). Use this server's own pages.`,
    { reason },
  );
  return true;
}

/** An onRequest/preHandler hook for a route authorised by an ambient credential. */
export async function requireSameOrigin(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  return refuseCrossSite(request, reply) ? reply : undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route may be authorised by loopback or the admin cookie: every method must be same origin. */
    ambientAuthorisation?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one hook that puts the guard in front of every route an ambient credential can reach: any
 * state-changing request that carries an admin cookie (whatever route it is for, so routes added
 * later are covered without anyone remembering), every request through /__backend that carries one
 * (the cookie turns it into a service-role call, and a GET can run a database function), and every
 * request to a route marked `ambientAuthorisation` (loopback-authorised routes).
 */
export function installSameOriginGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const marked = request.routeOptions.config?.ambientAuthorisation === true;
    const adminCookie = carriesAdminCookie(request.headers.cookie);
    const throughProxy =
      adminCookie && request.method !== 'OPTIONS' && pathUnder('/__backend', decideUrl(request.url).path) !== undefined;
    if (!marked && !throughProxy && !(adminCookie && !SAFE_METHODS.has(request.method))) return;
    return requireSameOrigin(request, reply);
  });
}

// Which plain-HTTP page visits move to HTTPS. Only a page visit (a navigation, GET or HEAD) from
// another device, to a host the certificate names, moves; and never /__ca, where a device gets the
// CA certificate it needs before HTTPS can open without a warning. A request whose socket comes
// from this computer is never moved: loopback is a secure context already, and a reverse proxy on
// this machine speaks plain HTTP to the gateway on purpose. Nor is anything that is not a page
// visit (the app's API calls, the phone remote's polls, a native client), which keeps working on
// plain HTTP exactly as before.
//
// HTTPS_REDIRECT decides which devices move:
// - `trusted` (the default): those whose browser has shown that it trusts the certificate. The
//   /__ca page checks that (it fetches the HTTPS address; a certificate the browser does not trust
//   fails the fetch) and then sets the `studyhall_https=trusted` cookie. A device that does not
//   trust the CA yet is therefore never sent to a certificate warning it cannot get past.
// - `always`: every device (managed devices that have the CA installed by their school).
// - `off`: none.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decideUrl, pathUnder } from '../security/request-path.ts';
import type { HttpsService } from './https-service.ts';

export const TRUST_COOKIE = 'studyhall_https';
export const TRUST_COOKIE_VALUE = 'trusted';
export const CA_PREFIX = '/__ca';

export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./i.test(address);
}

/** A browser's page visit: Sec-Fetch-Mode says so, or, from an older browser, Accept asks for HTML. */
function isPageVisit(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const mode = request.headers['sec-fetch-mode'];
  if (mode !== undefined) return mode === 'navigate';
  return (request.headers.accept ?? '').includes('text/html');
}

export function carriesTrustCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((part) => {
    const [name, value] = part.split('=').map((piece) => piece.trim());
    return name === TRUST_COOKIE && value === TRUST_COOKIE_VALUE;
  });
}

/** Where a plain-HTTP request should go instead, or undefined when it stays. */
export function httpsRedirectTarget(request: FastifyRequest, https: HttpsService): string | undefined {
  if (https.redirect === 'off' || (request.socket as { encrypted?: boolean }).encrypted) return undefined;
  if (isLoopbackPeer(request.socket.remoteAddress) || !isPageVisit(request)) return undefined;
  if (pathUnder(CA_PREFIX, decideUrl(request.url).path) !== undefined) return undefined;
  if (https.redirect === 'trusted' && !carriesTrustCookie(request.headers.cookie)) return undefined;
  const origin = https.urlFor(request.headers.host);
  return origin ? `${origin}${request.url.startsWith('/') ? request.url : '/'}` : undefined;
}

export function installHttpsRedirect(app: FastifyInstance, https: HttpsService): void {
  app.addHook('onRequest', async (request, reply) => {
    const target = httpsRedirectTarget(request, https);
    if (!target) return;
    return reply.code(307).header('location', target).header('cache-control', 'no-store').send();
  });
}

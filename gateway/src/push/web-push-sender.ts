// Sends one Web Push message: web-push builds the request (aes128gcm encryption, VAPID signature,
// TTL and topic headers) and undici sends it, so the endpoint may be plain HTTP (a loopback test
// receiver) and every request has its own deadline. The answer is classified for the worker.
//
// Every connection goes to a public address only (public-address.ts): the pool's connector looks
// the endpoint's host up once, refuses it unless every address is public, and connects to the
// address it checked (the TLS certificate is still verified against the name). A refused endpoint
// is a permanent failure: retrying would only knock on the same door again.
import { promises as dns } from 'node:dns';
import { Agent, buildConnector, request } from 'undici';
import webpush from 'web-push';
import { NonPublicEndpointError, resolvePublicAddress, type HostResolver } from './public-address.ts';
import type { PushSubscriptionJson } from './push-subscription.ts';
import type { VapidKeys } from './vapid-keys.ts';

export type SendOutcome =
  | { kind: 'sent'; status: number }
  /** The subscription no longer exists (404 / 410): remove the token. */
  | { kind: 'gone'; status: number; error: string }
  /** Worth trying again later (429, 5xx, no answer in time); retryAfterSeconds from Retry-After. */
  | { kind: 'retry'; status: number | undefined; error: string; retryAfterSeconds: number | undefined }
  /** Never going to work for this row (a refused request, a subscription web-push cannot use). */
  | { kind: 'failed'; status: number | undefined; error: string };

export interface SendOptions {
  vapid: VapidSigner;
  ttlSeconds: number;
  topic: string | undefined;
  timeoutMs: number;
  dispatcher: Agent;
}

const ERROR_BODY_CHARS = 200;

/** How long a VAPID token is valid (push services accept up to 24 h) and when it is renewed. */
const VAPID_TOKEN_SECONDS = 12 * 3600;
const VAPID_RENEW_BEFORE_SECONDS = 3600;
/** Push service origins remembered; tokens name arbitrary hosts, so the map is bounded. */
const VAPID_AUDIENCES = 100;

/**
 * The VAPID Authorization header per push service origin (the token's audience), signed once and
 * reused until close to expiry. Signing is an ES256 signature plus a key conversion in pure
 * JavaScript: done for every push it costs more than encrypting the message.
 */
export class VapidSigner {
  private readonly headers = new Map<string, { authorization: string; expiresAt: number }>();

  constructor(
    readonly keys: VapidKeys,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  authorization(endpoint: string): string {
    const audience = new URL(endpoint).origin;
    const now = this.nowSeconds();
    const cached = this.headers.get(audience);
    if (cached && cached.expiresAt - now > VAPID_RENEW_BEFORE_SECONDS) return cached.authorization;
    const expiresAt = now + VAPID_TOKEN_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      this.keys.subject,
      this.keys.publicKey,
      this.keys.privateKey,
      'aes128gcm',
      expiresAt,
    );
    this.headers.delete(audience);
    if (this.headers.size >= VAPID_AUDIENCES) this.headers.delete(this.headers.keys().next().value as string);
    this.headers.set(audience, { authorization: Authorization, expiresAt });
    return Authorization;
  }
}

/** The system's resolver, every address of a name, in the order the system gives them. */
export const systemResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface EndpointGuard {
  resolve: HostResolver;
  /** WEB_PUSH_ALLOW_HTTP: plain-HTTP endpoints on loopback are allowed (test receivers only). */
  allowPlainHttpLoopback: boolean;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** The address a push connection goes to, or a NonPublicEndpointError. */
export async function endpointAddress(protocol: string, hostname: string, guard: EndpointGuard): Promise<string> {
  try {
    return (await resolvePublicAddress(hostname, guard.resolve)).address;
  } catch (error) {
    if (!(error instanceof NonPublicEndpointError) || protocol !== 'http:' || !guard.allowPlainHttpLoopback)
      throw error;
    const [first] = error.addresses;
    if (first !== undefined && error.addresses.every((address) => LOOPBACK.test(address))) return first;
    throw error;
  }
}

/** One connection pool for all pushes of a worker, with idle sockets closed soon, connecting only where the guard allows. */
export function createPushAgent(connectionsPerOrigin: number, guard: EndpointGuard): Agent {
  const connectDirectly = buildConnector({});
  const connect: buildConnector.connector = (options, callback) => {
    endpointAddress(options.protocol, options.hostname, guard).then(
      // `host` keeps the name, so TLS still sends it (SNI) and checks the certificate against it.
      (address) => connectDirectly({ ...options, hostname: address }, callback),
      (error: Error) => callback(error, null),
    );
  };
  return new Agent({
    connections: connectionsPerOrigin,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connect,
  });
}

function refusedEndpoint(error: unknown): NonPublicEndpointError | undefined {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof NonPublicEndpointError) return current;
  }
  return undefined;
}

/** Retry-After is seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export async function sendWebPush(
  subscription: PushSubscriptionJson,
  body: string,
  options: SendOptions,
): Promise<SendOutcome> {
  let details: ReturnType<typeof webpush.generateRequestDetails>;
  try {
    details = webpush.generateRequestDetails(subscription, body, {
      TTL: options.ttlSeconds,
      contentEncoding: 'aes128gcm',
      urgency: 'normal',
      ...(options.topic ? { topic: options.topic } : {}),
    });
  } catch (error) {
    // web-push refuses keys it cannot use (wrong length, not a curve point): the token is unusable.
    return {
      kind: 'failed',
      status: undefined,
      error: `cannot encrypt for this subscription: ${(error as Error).message}`,
    };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) headers[name.toLowerCase()] = String(value);
  // No vapidDetails above: VapidSigner signs once per push service rather than once per push
  // (and this replaces any header a global setVapidDetails elsewhere would have added).
  headers.authorization = options.vapid.authorization(details.endpoint);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(details.endpoint, {
      method: 'POST',
      headers,
      body: details.body ?? undefined,
      dispatcher: options.dispatcher,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const refused = refusedEndpoint(error);
    if (refused) return { kind: 'failed', status: undefined, error: refused.message };
    const reason =
      (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
    return {
      kind: 'retry',
      status: undefined,
      error: `push service unreachable: ${reason}`,
      retryAfterSeconds: undefined,
    };
  }
  const status = response.statusCode;
  let text = '';
  try {
    text =
      status >= 200 && status < 300
        ? (await response.body.dump(), '')
        : (await response.body.text()).slice(0, ERROR_BODY_CHARS);
  } catch {
    // The status decides; a body cut short changes nothing.
  }
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  const error = `push service answered ${status}${text ? `: ${text.replace(/\s+/g, ' ').trim()}` : ''}`;
  if (status === 404 || status === 410) return { kind: 'gone', status, error };
  if (status === 429 || status === 408 || status >= 500) {
    return { kind: 'retry', status, error, retryAfterSeconds: parseRetryAfter(response.headers['retry-after']) };
  }
  // 400 (malformed), 401 / 403 (VAPID refused: keys changed since the browser subscribed), 413.
  return { kind: 'failed', status, error };
}

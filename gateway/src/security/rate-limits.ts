// Per-address budgets, decided for every request in one hook on the decided path (request-path.ts),
// so no spelling and no route (the gateway's own or the proxy's) gets around them:
// - credentials: signup, login and e-mail check, the admin console's unlock (POST /__admin/login),
//   and the same attempts sent straight to the backend's auth API through /__backend (password and
//   other non-refresh grants, signup, one-time codes, recovery, MFA verification) share ONE budget
//   per address;
// - errorReports: POST /__errors, so a neighbour on the LAN cannot keep the disk busy.
// The counting is @fastify/rate-limit's: its own store in this server's memory, or, for servers that
// share their state (a district), shared-rate-limit-store.ts. Only the classification is ours.
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http-errors.ts';
import { decideUrl, pathUnder, type DecidedUrl } from './request-path.ts';

export interface Budget {
  max: number;
  windowMs: number;
}

export interface RateLimitSettings {
  credentials: Budget;
  errorReports: Budget;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  credentials: { max: 10, windowMs: 60_000 },
  errorReports: { max: 60, windowMs: 60_000 },
};

export type LimitedFamily = keyof RateLimitSettings;

const GATEWAY_CREDENTIAL_PATHS = new Set(['/__auth/signup', '/__auth/login', '/__auth/check']);
const BACKEND_CREDENTIAL_PATHS = new Set([
  '/auth/v1/signup',
  '/auth/v1/otp',
  '/auth/v1/magiclink',
  '/auth/v1/recover',
  '/auth/v1/verify',
  '/auth/v1/resend',
]);
const MFA_ATTEMPT = /^\/auth\/v1\/factors\/[^/]+\/(verify|challenge)$/;

/**
 * A token request is a credential attempt unless it only refreshes a session: apps refresh all the
 * time, and a refresh token is not guessable. Any other grant (password, id_token, pkce, ...), a
 * missing grant, or a query naming several grants counts.
 */
function isNonRefreshGrant(query: string): boolean {
  const grants = new URLSearchParams(query).getAll('grant_type');
  return !(grants.length > 0 && grants.every((grant) => grant === 'refresh_token'));
}

/** Sent through the proxy to the backend's auth API (path under /__backend). */
export function isBackendCredentialAttempt(method: string, pathUnderBackend: string, query: string): boolean {
  if (method === 'OPTIONS') return false;
  if (pathUnderBackend === '/auth/v1/token') return isNonRefreshGrant(query);
  return BACKEND_CREDENTIAL_PATHS.has(pathUnderBackend) || MFA_ATTEMPT.test(pathUnderBackend);
}

export function limitedFamily(method: string, decided: DecidedUrl): LimitedFamily | undefined {
  if (method === 'OPTIONS') return undefined;
  if (GATEWAY_CREDENTIAL_PATHS.has(decided.path)) return 'credentials';
  if (decided.path === '/__admin/login' && method === 'POST') return 'credentials';
  if (decided.path === '/__errors') return 'errorReports';
  const underBackend = pathUnder('/__backend', decided.path);
  if (underBackend !== undefined && isBackendCredentialAttempt(method, underBackend, decided.query))
    return 'credentials';
  return undefined;
}

const MESSAGES: Record<LimitedFamily, string> = {
  credentials: 'Too many sign-in, sign-up or check attempts from this address',
  errorReports: 'Too many error reports from this address',
};

/**
 * Registers the store and the one onRequest hook that spends the budgets. Call before any route.
 * store: a shared store (the plugin's `store` option); unset: the plugin's own, in memory.
 */
export async function installRateLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  store?: FastifyRateLimitStoreCtor,
): Promise<void> {
  await app.register(rateLimit, { global: false, ...(store ? { store } : {}) });
  // Each key names its family, so the two budgets never count into each other in a shared store.
  const limiters = {
    credentials: app.createRateLimit({
      max: settings.credentials.max,
      timeWindow: settings.credentials.windowMs,
      keyGenerator: (request) => `credentials:${request.ip}`,
    }),
    errorReports: app.createRateLimit({
      max: settings.errorReports.max,
      timeWindow: settings.errorReports.windowMs,
      keyGenerator: (request) => `error-reports:${request.ip}`,
    }),
  };
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const family = limitedFamily(request.method, decideUrl(request.url));
    if (!family) return;
    const result = await limiters[family](request);
    if (result.isAllowed || !result.isExceeded) return;
    reply.header('retry-after', String(result.ttlInSeconds));
    return sendError(reply, 429, 'rate_limited', `${MESSAGES[family]}; try again in ${result.ttlInSeconds} s.`, {
      retry_after_s: result.ttlInSeconds,
      limit: result.max,
      window_s: Math.round(result.timeWindow / 1000),
    });
  });
}

// /__auth/signup, /__auth/login, /__auth/check: unauthenticated and rate limited (DESIGN.md: 10
// per minute per client address, then 429 rate_limited with Retry-After).
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import { GatewayError, parseOrThrow } from '../http-errors.ts';
import { checkBody, credentialsBody } from './credentials.ts';
import { ensureSatelliteRows } from './satellite-rows.ts';
import { createAccount, isEmailRegistered, passwordGrant } from './sessions.ts';

export interface AuthRoutesOptions {
  backend: BackendClient;
  rateLimit?: { max: number; windowMs: number };
}

const authRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, { backend, ...options }) => {
  const limit = options.rateLimit ?? { max: 10, windowMs: 60_000 };
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) =>
      new GatewayError(429, 'rate_limited', `Too many attempts from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`, {
        retry_after_s: Math.ceil(context.ttl / 1000),
      }),
  });
  const limited = { config: { rateLimit: { max: limit.max, timeWindow: limit.windowMs } } };

  app.post('/__auth/signup', limited, async (request, reply) => {
    const credentials = parseOrThrow(credentialsBody, request.body);
    const session = await createAccount(backend, credentials);
    if (!session) {
      return reply.code(202).send({ ok: true, session: null, confirmation_required: true });
    }
    const bootstrap = await ensureSatelliteRows(backend, { token: session.access_token, userId: session.user.id }, credentials.username);
    return reply.code(201).send({ ok: true, session, user: session.user, bootstrap });
  });

  app.post('/__auth/login', limited, async (request) => {
    const credentials = parseOrThrow(credentialsBody, request.body);
    const session = await passwordGrant(backend, credentials);
    const bootstrap = await ensureSatelliteRows(backend, { token: session.access_token, userId: session.user.id }, credentials.username);
    return { ok: true, session, user: session.user, bootstrap };
  });

  app.post('/__auth/check', limited, async (request) => {
    const { username } = parseOrThrow(checkBody, request.body);
    if (!backend.hasServiceRole) {
      throw new GatewayError(503, 'check_unavailable', 'Checking an e-mail needs BACKEND_SERVICE_ROLE_KEY on this server.');
    }
    return { ok: true, registered: await isEmailRegistered(backend, username) };
  });
};

export default authRoutes;

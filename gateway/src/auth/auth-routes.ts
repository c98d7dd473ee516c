// /__auth/signup, /__auth/login, /__auth/check: unauthenticated and rate limited (10 per minute per
// client address, shared with the same attempts through the proxy: security/rate-limits.ts, then
// 429 rate_limited with Retry-After). Login also spends the account's budget of failed passwords
// across all addresses (security/account-login-limits.ts), shared with the proxy's password grant.
import type { FastifyPluginAsync } from 'fastify';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { toGatewayError } from '../backend/backend-errors.ts';
import { GatewayError, parseOrThrow } from '../http-errors.ts';
import { sendAccountLocked, type AccountLoginBudget } from '../security/account-login-limits.ts';
import { checkBody, credentialsBody } from './credentials.ts';
import { ensureSatelliteRows } from './satellite-rows.ts';
import { createAccount, isEmailRegistered, passwordGrant } from './sessions.ts';

export interface AuthRoutesOptions {
  backend: BackendClient;
  accountLogins: AccountLoginBudget;
}

const isWrongPassword = (error: unknown) =>
  error instanceof BackendError && toGatewayError(error).code === 'invalid_credentials';

const authRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app, options) => {
  app.post('/__auth/signup', async (request, reply) => {
    const credentials = parseOrThrow(credentialsBody, request.body);
    const backend = options.backend.forRoute();
    const session = await createAccount(backend, credentials);
    if (!session) {
      return reply.code(202).send({ ok: true, session: null, confirmation_required: true });
    }
    const bootstrap = await ensureSatelliteRows(
      backend,
      { token: session.access_token, userId: session.user.id },
      credentials.username,
    );
    return reply.code(201).send({ ok: true, session, user: session.user, bootstrap });
  });

  app.post('/__auth/login', async (request, reply) => {
    const credentials = parseOrThrow(credentialsBody, request.body);
    const attempt = options.accountLogins.begin(credentials.username);
    if ('lock' in attempt) return sendAccountLocked(reply, attempt.lock);
    const backend = options.backend.forRoute();
    let session: Awaited<ReturnType<typeof passwordGrant>>;
    try {
      session = await passwordGrant(backend, credentials);
      attempt.settle(false);
    } catch (error) {
      attempt.settle(isWrongPassword(error));
      throw error;
    }
    const bootstrap = await ensureSatelliteRows(
      backend,
      { token: session.access_token, userId: session.user.id },
      credentials.username,
    );
    return { ok: true, session, user: session.user, bootstrap };
  });

  app.post('/__auth/check', async (request) => {
    const { username } = parseOrThrow(checkBody, request.body);
    const backend = options.backend.forRoute();
    if (!backend.hasServiceRole) {
      throw new GatewayError(
        503,
        'check_unavailable',
        'Checking an e-mail needs BACKEND_SERVICE_ROLE_KEY on this server.',
      );
    }
    return { ok: true, registered: await isEmailRegistered(backend, username) };
  });
};

export default authRoutes;

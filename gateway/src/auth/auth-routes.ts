// /__auth/signup, /__auth/login, /__auth/check: unauthenticated and rate limited (10 per minute per
// client address, shared with the same attempts through the proxy: security/rate-limits.ts, then
// 429 rate_limited with Retry-After). Login also spends the account's budget of failed passwords
// across all addresses (security/account-login-limits.ts), shared with the proxy's password grant.
// A refused login is one answer, 401 invalid_credentials, for a wrong password and an unknown
// e-mail alike; /__auth/check tells what sign-up tells, to the same budget
// (docs/api.md, "Who is registered").
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registeredAnswer, signedIn, signUpPending } from '#contracts/auth-answers.ts';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { toGatewayError } from '../backend/backend-errors.ts';
import { GatewayError } from '../http-errors.ts';
import { withErrorBody } from '../route-schemas.ts';
import { sendAccountLocked, type AccountLoginLimiter } from '../security/account-login-limits.ts';
import { checkBody, credentialsBody, type Credentials } from './credentials.ts';
import { ensureSatelliteRows } from './satellite-rows.ts';
import { createAccount, isEmailRegistered, passwordGrant, suspensionEnd, type Session } from './sessions.ts';

export interface AuthRoutesOptions {
  backend: BackendClient;
  accountLogins: AccountLoginLimiter;
}

const isWrongPassword = (error: unknown) =>
  error instanceof BackendError && toGatewayError(error).code === 'invalid_credentials';

/**
 * A suspended account, told so with the end of its ban. The backend answers `user_banned` only
 * once the password has matched (as GoTrue does; a wrong one is `invalid_credentials` like any
 * other), so only someone holding the password learns that the account is suspended, and until when.
 */
async function suspended(error: unknown, backend: BackendClient, email: string): Promise<unknown> {
  if (!(error instanceof BackendError) || error.code !== 'user_banned') return error;
  const until = await suspensionEnd(backend, email).catch(() => null);
  return new GatewayError(
    403,
    'account_suspended',
    until
      ? `This account is suspended until ${until}; ask whoever runs this server.`
      : 'This account is suspended; ask whoever runs this server.',
    { banned_until: until },
  );
}

/**
 * A sign-up sent again after its answer was lost: the backend went on creating the account after
 * the gateway gave up waiting (a slow, loaded backend answers 504 here first), so the retry meets
 * `email_taken`. The same e-mail with the same password is the same person: she is signed in, as
 * a login would (spending the account's budget of wrong passwords like one). Anyone else gets the
 * original 409, which tells no more than `/__auth/check` does.
 */
async function resumeSignUp(
  error: unknown,
  backend: BackendClient,
  credentials: Credentials,
  accountLogins: AccountLoginLimiter,
): Promise<Session> {
  if (!(error instanceof BackendError) || toGatewayError(error).code !== 'email_taken') throw error;
  const attempt = await accountLogins.begin(credentials.username);
  if ('lock' in attempt) throw error;
  try {
    const session = await passwordGrant(backend, credentials);
    attempt.settle(false);
    return session;
  } catch (grantError) {
    attempt.settle(isWrongPassword(grantError));
    throw error;
  }
}

const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async (app, options) => {
  const signUpSchema = { body: credentialsBody, response: withErrorBody({ 201: signedIn, 202: signUpPending }) };
  app.post('/__auth/signup', { schema: signUpSchema }, async (request, reply) => {
    const credentials = request.body;
    const backend = options.backend.forRoute();
    let session: Awaited<ReturnType<typeof createAccount>>;
    try {
      session = await createAccount(backend, credentials);
    } catch (error) {
      session = await resumeSignUp(error, backend, credentials, options.accountLogins);
    }
    if (!session) {
      return reply.code(202).send({ ok: true as const, session: null, confirmation_required: true as const });
    }
    const bootstrap = await ensureSatelliteRows(
      backend,
      { token: session.access_token, userId: session.user.id },
      credentials.username,
    );
    return reply.code(201).send({ ok: true as const, session, user: session.user, bootstrap });
  });

  const loginSchema = { body: credentialsBody, response: withErrorBody({ 200: signedIn }) };
  app.post('/__auth/login', { schema: loginSchema }, async (request, reply) => {
    const credentials = request.body;
    const attempt = await options.accountLogins.begin(credentials.username);
    if ('lock' in attempt) return sendAccountLocked(reply, attempt.lock);
    const backend = options.backend.forRoute();
    let session: Awaited<ReturnType<typeof passwordGrant>>;
    try {
      session = await passwordGrant(backend, credentials);
      attempt.settle(false);
    } catch (error) {
      attempt.settle(isWrongPassword(error));
      throw await suspended(error, backend, credentials.username);
    }
    const bootstrap = await ensureSatelliteRows(
      backend,
      { token: session.access_token, userId: session.user.id },
      credentials.username,
    );
    return { ok: true as const, session, user: session.user, bootstrap };
  });

  const checkSchema = { body: checkBody, response: withErrorBody({ 200: registeredAnswer }) };
  app.post('/__auth/check', { schema: checkSchema }, async (request) => {
    const { username } = request.body;
    const backend = options.backend.forRoute();
    if (!backend.hasServiceRole) {
      throw new GatewayError(
        503,
        'check_unavailable',
        'Checking an e-mail needs BACKEND_SERVICE_ROLE_KEY on this server.',
      );
    }
    return { ok: true as const, registered: await isEmailRegistered(backend, username) };
  });
};

export default authRoutes;

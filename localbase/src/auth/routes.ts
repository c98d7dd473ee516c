// /auth/v1: the GoTrue subset docs/localbase.md lists ("Other APIs"). Sign-up confirms at once
// (as the local CLI does); passwords are bcrypt-hashed; access tokens carry GoTrue's claims and are
// signed ES256 with the project's signing key, published at /.well-known/jwks.json.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { installJsonParser, InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from '../json-body.ts';
import {
  JwtError,
  requestToken,
  verifyJwt,
  type SigningKey,
  type VerificationKeys,
  type VerifiedToken,
} from '../jwt.ts';
import { ConnectionBusyError } from '../pooled-client.ts';
import { withOwnerTransaction } from '../request-transaction.ts';
import { isDatabaseError } from '../rest/errors.ts';
import {
  AuthError,
  badJwt,
  invalidCredentials,
  noAuthorization,
  OAuthError,
  notAdmin,
  sendAuthError,
  sessionNotFound,
  userNotFound,
  validationFailed,
} from './errors.ts';
import { accountRoutes } from './account-routes.ts';
import { adminFactorRoutes } from './admin-factor-routes.ts';
import type { AuthContext } from './context.ts';
import { emailRoutes, userBanned } from './email-routes.ts';
import { mfaRoutes } from './mfa-routes.ts';
import { settingsRoute } from './settings.ts';
import { refusalRoutes, refuseIdTokenGrant, refusePkceGrant, refuseWeb3Grant } from './refusals.ts';
import { checkEmail, checkPassword, EMAIL_MAX_CHARS, isUniqueViolation, metadata, parse } from './input.ts';
import type { Mailer } from './mail.ts';
import type { RedirectPolicy } from './redirects.ts';
import {
  buildSession,
  endSessions,
  rotateRefreshToken,
  sessionAssurance,
  sessionExists,
  startSession,
  type SessionSigning,
} from './sessions.ts';
import {
  deleteUser,
  findUserByEmail,
  findUserById,
  insertAnonymousUser,
  insertUser,
  listUsers,
  normalizeEmail,
  passwordHashing,
  recordSignIn,
  type NewUser,
} from './users.ts';

export interface AuthRoutesOptions {
  pool: pg.Pool;
  /** What bearer tokens are verified with: the HS256 secret and the ES256 public keys. */
  verificationKeys: VerificationKeys;
  /** What signs new sessions. */
  signingKey: SigningKey;
  /** GoTrue's GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: whether POST /signup without credentials signs in anonymously. */
  anonymousSignIns: boolean;
  /** `iss` of access tokens: `<API URL>/auth/v1`, as GoTrue sets it (known once listening). */
  issuer: () => string;
  mailer: Mailer;
  redirects: RedirectPolicy;
  /** `<API URL as mail readers reach it>/auth/v1`: the base of the links in mail. */
  linkBase: () => string;
  /**
   * GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED (config.toml's `[auth.email] double_confirm_changes`):
   * whether an address change waits for a link followed from the current address as well as the new.
   */
  doubleConfirmEmailChanges: boolean;
  /** bcrypt's cost for new password hashes (LocalbaseOptions.passwordHashCost); default GoTrue's 10. */
  passwordHashCost?: number | undefined;
}

/** auth.refresh_tokens.token is varchar(255): anything longer cannot be a token of ours. */
const REFRESH_TOKEN_MAX_CHARS = 255;

const signupBody = z
  .object({ email: z.string().optional(), password: z.string().optional(), data: metadata.optional() })
  .passthrough();
const passwordGrantBody = z.object({ email: z.string(), password: z.string() }).passthrough();
const refreshGrantBody = z.object({ refresh_token: z.string() }).passthrough();
const tokenQuery = z.object({ grant_type: z.string().optional() }).passthrough();
const logoutQuery = z.object({ scope: z.enum(['global', 'local', 'others']).default('global') });
const adminCreateBody = z
  .object({
    email: z.string(),
    password: z.string().optional(),
    email_confirm: z.boolean().optional(),
    user_metadata: metadata.optional(),
    app_metadata: metadata.optional(),
  })
  .passthrough();
const adminListQuery = z.object({
  page: z.union([z.literal(''), z.coerce.number().int().min(1).max(1_000_000)]).optional(),
  per_page: z.union([z.literal(''), z.coerce.number().int().min(1).max(1000)]).optional(),
});
const userIdParams = z.object({ id: z.uuid() });

/** Text PostgreSQL cannot store (a NUL character) or will not take as an identifier. */
function storableText(text: string, maxChars: number): boolean {
  return text.length <= maxChars && !text.includes('\u0000');
}

const refreshTokenNotFound = () =>
  new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');

/**
 * A password sign-in with a phone number instead of an e-mail: GoTrue with phone sign-in off
 * refuses it by its provider, as localbase's /otp does, rather than as a malformed body.
 */
function refusePhonePasswordGrant(body: unknown): void {
  const given = (body ?? {}) as { email?: unknown; phone?: unknown };
  if (given.email === undefined && typeof given.phone === 'string' && given.phone !== '') {
    throw new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled');
  }
}

/**
 * GoTrue's words for a token it cannot accept: clients and apps look for "unable to parse or verify
 * signature" (auth-js's getClaims among them), and an expired token is one of those for GoTrue too.
 */
function gotrueJwtMessage(error: JwtError): string {
  if (error.reason === 'expired')
    return 'unable to parse or verify signature, token has invalid claims: token is expired';
  if (error.reason === 'invalid') return `unable to parse or verify signature, ${error.message}`;
  return error.message;
}
export async function authRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { pool } = options;
  const signing: SessionSigning = { key: options.signingKey, issuer: options.issuer };
  const passwords = passwordHashing(options.passwordHashCost);

  installJsonParser(app);

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error instanceof AuthError) return sendAuthError(request, reply, error);
    if (error instanceof OAuthError) {
      return reply.status(400).send({ error: error.error, error_description: error.description });
    }
    if (error instanceof InvalidJsonError) {
      return sendAuthError(
        request,
        reply,
        new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${error.message}`),
      );
    }
    if (isBodyTooLarge(error)) {
      return sendAuthError(
        request,
        reply,
        new AuthError(413, 'request_entity_too_large', `Request body too large (max ${JSON_BODY_LIMIT_BYTES} bytes)`),
      );
    }
    if (error instanceof ConnectionBusyError) {
      return sendAuthError(request, reply, new AuthError(504, 'request_timeout', error.message));
    }
    // Data the database refused as a value (class 22: a NUL in metadata, a number out of range):
    // the request's fault, whatever slipped past the checks above.
    if (isDatabaseError(error) && error.code?.startsWith('22')) {
      return sendAuthError(request, reply, validationFailed(`Invalid input: ${error.message}`));
    }
    request.log.error({ err: error }, 'auth request failed');
    return sendAuthError(request, reply, new AuthError(500, 'unexpected_failure', 'Unexpected failure'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendAuthError(
      request,
      reply,
      new AuthError(404, 'not_found', `localbase does not implement ${request.method} ${request.url.split('?')[0]}`),
    ),
  );

  /** The verified bearer token of a signed-in user whose session still exists. */
  async function signedInUser(request: FastifyRequest): Promise<VerifiedToken & { userId: string; sessionId: string }> {
    const verified = await verifiedBearer(request);
    const { sub, session_id: sessionId } = verified.claims;
    if (verified.role !== 'authenticated' || !sub || !sessionId) throw badJwt('not a user access token');
    const live = await withOwnerTransaction(pool, (client) => sessionExists(client, sessionId), { readOnly: true });
    if (!live) throw sessionNotFound();
    return { ...verified, userId: sub, sessionId };
  }

  async function verifiedBearer(request: FastifyRequest): Promise<VerifiedToken> {
    const authorization = request.headers.authorization;
    if (typeof authorization !== 'string' || !/^Bearer\s+\S+/i.test(authorization)) throw noAuthorization();
    const token = requestToken({ authorization });
    try {
      return await verifyJwt(token ?? '', options.verificationKeys);
    } catch (error) {
      if (error instanceof JwtError) throw badJwt(gotrueJwtMessage(error));
      throw error;
    }
  }

  async function requireServiceRole(request: FastifyRequest): Promise<void> {
    const verified = await verifiedBearer(request);
    if (verified.role !== 'service_role') throw notAdmin();
  }

  /** Inserts a confirmed or unconfirmed user; a taken e-mail becomes `duplicateCode` (422). */
  async function createUser(client: pg.PoolClient, user: NewUser, passwordHash: string | null, duplicateCode: string) {
    try {
      return await insertUser(client, user, passwordHash);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw duplicateCode === 'user_already_exists'
          ? new AuthError(422, duplicateCode, 'User already registered')
          : new AuthError(422, duplicateCode, 'A user with this email address has already been registered');
      }
      throw error;
    }
  }

  // Work that runs after the answer (mail whose sending must not show in the answer's timing);
  // closing the server waits for it.
  const pending = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
  });
  const context: AuthContext = {
    pool,
    signing,
    mailer: options.mailer,
    redirects: options.redirects,
    linkBase: options.linkBase,
    doubleConfirmEmailChanges: options.doubleConfirmEmailChanges,
    passwords,
    signedInUser,
    requireServiceRole,
    afterAnswer(request, work) {
      const running = work().catch((error: unknown) => request.log.error({ err: error }, 'auth mail failed'));
      pending.add(running);
      void running.finally(() => pending.delete(running));
    },
  };
  await emailRoutes(app, context);
  await accountRoutes(app, context);
  await mfaRoutes(app, context);
  await adminFactorRoutes(app, context);
  await settingsRoute(app, { anonymousSignIns: options.anonymousSignIns });
  await refusalRoutes(app, context);

  // The public half of the signing key, as GoTrue publishes it (never the HS256 secret).
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=600');
    return { keys: [options.signingKey.publicJwk] };
  });

  app.get('/health', async () => ({
    version: 'localbase',
    name: 'GoTrue',
    description: 'localbase auth (GoTrue subset)',
  }));

  app.post('/signup', async (request) => {
    const body = parse(signupBody, request.body);
    if (!body.email) {
      if (!options.anonymousSignIns) {
        throw new AuthError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
      }
      return withOwnerTransaction(pool, async (client) => {
        const userId = await insertAnonymousUser(client, body.data ?? {});
        await recordSignIn(client, userId);
        const { sessionId, refreshToken } = await startSession(client, userId, 'anonymous');
        const user = await findUserById(client, userId);
        if (!user) throw userNotFound();
        return buildSession(signing, user.user, sessionId, refreshToken, 'anonymous');
      });
    }
    const email = checkEmail(body.email);
    if (body.password === undefined) throw validationFailed('Signup requires a valid password');
    await checkPassword(body.password, email);
    const passwordHash = await passwords.hash(body.password);
    return withOwnerTransaction(pool, async (client) => {
      const userId = await createUser(
        client,
        { email, userMetadata: body.data ?? {}, appMetadata: {}, confirmed: true },
        passwordHash,
        'user_already_exists',
      );
      await recordSignIn(client, userId);
      const { sessionId, refreshToken } = await startSession(client, userId);
      const user = await findUserById(client, userId);
      if (!user) throw userNotFound();
      return buildSession(signing, user.user, sessionId, refreshToken);
    });
  });

  app.post('/token', async (request) => {
    const { grant_type: grantType } = parse(tokenQuery, request.query);
    if (grantType === 'id_token') refuseIdTokenGrant(request.body);
    if (grantType === 'web3') refuseWeb3Grant();
    if (grantType === 'pkce') refusePkceGrant(request.body);
    if (grantType !== 'password' && grantType !== 'refresh_token') {
      throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type');
    }
    if (grantType === 'password') {
      refusePhonePasswordGrant(request.body);
      const body = parse(passwordGrantBody, request.body);
      const email = normalizeEmail(body.email);
      // An address no account can have is simply not found, as GoTrue answers it.
      if (!storableText(email, EMAIL_MAX_CHARS)) throw invalidCredentials();
      const found = await withOwnerTransaction(pool, (client) => findUserByEmail(client, email), { readOnly: true });
      // The hash is compared outside any transaction: bcrypt takes ~70 ms and PGlite has one session.
      // An unknown e-mail is compared too (against a dummy hash), so that it takes as long.
      const matches = await passwords.matches(body.password, found?.encrypted_password);
      if (!found || !matches) throw invalidCredentials();
      if (found.banned) throw userBanned();
      return withOwnerTransaction(pool, async (client) => {
        await recordSignIn(client, found.id);
        const { sessionId, refreshToken } = await startSession(client, found.id);
        const user = await findUserById(client, found.id);
        if (!user) throw invalidCredentials();
        return buildSession(signing, user.user, sessionId, refreshToken);
      });
    }
    const body = parse(refreshGrantBody, request.body);
    if (body.refresh_token === '') throw validationFailed('refresh_token is required');
    if (!storableText(body.refresh_token, REFRESH_TOKEN_MAX_CHARS)) throw refreshTokenNotFound();
    // The session's end on detected reuse must commit, so the refusal is thrown after the commit.
    const rotated = await withOwnerTransaction(pool, async (client) => {
      const rotation = await rotateRefreshToken(client, body.refresh_token);
      if (rotation.kind === 'reuse-detected') return rotation;
      const user = await findUserById(client, rotation.userId);
      if (!user) throw userNotFound();
      if (user.banned) throw userBanned();
      const assurance = await sessionAssurance(client, rotation.sessionId);
      return buildSession(signing, user.user, rotation.sessionId, rotation.refreshToken, assurance);
    });
    if ('kind' in rotated) {
      request.log.warn({ sessionId: rotated.sessionId }, 'refresh token reused after rotation: session ended');
      throw new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    }
    return rotated;
  });

  app.get('/user', async (request) => {
    const caller = await signedInUser(request);
    const user = await withOwnerTransaction(pool, (client) => findUserById(client, caller.userId), { readOnly: true });
    if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return user.user;
  });

  app.post('/logout', async (request, reply: FastifyReply) => {
    const { scope } = parse(logoutQuery, request.query);
    const caller = await signedInUser(request);
    await withOwnerTransaction(pool, (client) => endSessions(client, caller.userId, caller.sessionId, scope));
    return reply.status(204).send();
  });

  app.get('/admin/users', async (request, reply) => {
    await requireServiceRole(request);
    const query = parse(adminListQuery, request.query);
    const page = query.page || 1;
    const perPage = query.per_page || 50;
    const { users, total } = await withOwnerTransaction(pool, (client) => listUsers(client, page, perPage));
    const lastPage = Math.max(1, Math.ceil(total / perPage));
    const links = [];
    if (page < lastPage) links.push(`</admin/users?page=${page + 1}&per_page=${perPage}>; rel="next"`);
    links.push(`</admin/users?page=${lastPage}&per_page=${perPage}>; rel="last"`);
    reply.header('x-total-count', String(total)).header('link', links.join(', '));
    return { users, aud: 'authenticated' };
  });

  app.post('/admin/users', async (request) => {
    await requireServiceRole(request);
    const body = parse(adminCreateBody, request.body);
    const email = checkEmail(body.email);
    // Without a password the account exists but nobody can sign in with one (GoTrue allows this).
    if (body.password !== undefined) await checkPassword(body.password, email);
    const passwordHash = body.password === undefined ? null : await passwords.hash(body.password);
    return withOwnerTransaction(pool, async (client) => {
      const id = await createUser(
        client,
        {
          email,
          userMetadata: body.user_metadata ?? {},
          appMetadata: body.app_metadata ?? {},
          confirmed: body.email_confirm ?? false,
        },
        passwordHash,
        'email_exists',
      );
      const user = await findUserById(client, id);
      if (!user) throw userNotFound();
      return user.user;
    });
  });

  app.get('/admin/users/:id', async (request) => {
    await requireServiceRole(request);
    const { id } = parse(userIdParams, request.params);
    const user = await withOwnerTransaction(pool, (client) => findUserById(client, id));
    if (!user) throw userNotFound();
    return user.user;
  });

  app.delete('/admin/users/:id', async (request) => {
    await requireServiceRole(request);
    const { id } = parse(userIdParams, request.params);
    const deleted = await withOwnerTransaction(pool, (client) => deleteUser(client, id));
    if (!deleted) throw userNotFound();
    return {};
  });
}

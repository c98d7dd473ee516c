// GET, POST /__admin/login (no admin needed; POST spends the shared credential budget of the
// address, like /__auth/login) and POST /__admin/logout. Success sets the admin cookie through
// @fastify/cookie's signing and sends a browser on to where it was going; logout ends the session
// on the server (admin-cookie.ts), so the same cookie value is refused everywhere after it.
// A login the schema refuses is still answered with the unlock page and its reason (a browser) or
// the JSON error: the route takes the validation failure in its handler (attachValidation).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminLoginStatus,
  adminSignedIn,
  adminSignedOut,
  type AdminLoginStatus,
  type AdminSignedIn,
  type AdminSignedOut,
} from '#contracts/admin-api.ts';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import {
  accountSubject,
  ADMIN_COOKIE,
  ADMIN_COOKIE_MAX_AGE_S,
  adminCookiePayload,
  endAdminSession,
  newSessionNonce,
  readAdminCookie,
} from '../admin-cookie.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleAnswers, FORM_OR_JSON, seeOther, unreadBody } from '../console-schemas.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { optionalField } from '../form-body.ts';
import { subjectName } from '../people.ts';
import { sendData, sendPage, wantsHtml } from '../respond.ts';
import { SECRET_SUBJECT, secretMatches, verifyBackendSession } from './admin-login.ts';
import { ACCOUNT_LOGIN_SCRIPT, loginBody, type LoginView } from './login-page.ts';

export const DEFAULT_NEXT = '/__admin/verify';

/** Only a path of the console itself: never another site, never a protocol-relative URL. */
export function safeNext(value: unknown): string {
  return typeof value === 'string' &&
    /^\/__admin\/[A-Za-z0-9/_.?=&%-]*$/.test(value) &&
    !value.startsWith('/__admin/login')
    ? value
    : DEFAULT_NEXT;
}

const nextField = optionalField(z.string().max(2048).describe('The console page to go on to (a browser).'));
const loginRequest = z.union([
  z.object({ secret: z.string().min(1).max(1024).describe('ADMIN_SECRET.'), next: nextField }),
  z.object({
    access_token: z.string().min(1).max(8192).describe("A backend session's access token."),
    next: nextField,
  }),
]);

const loginQuery = z.object({ next: z.string().max(2048).optional() }).loose();

const loginPageSchema = {
  querystring: loginQuery,
  response: consoleAnswers({
    200: jsonOrPage(adminLoginStatus, 'The unlock page; JSON: which ways in this server offers.'),
  }),
};
const loginSchema = {
  consumes: FORM_OR_JSON,
  body: loginRequest,
  response: consoleAnswers({
    200: adminSignedIn,
    303: seeOther('Signed in: on to `next` (a console page), for a browser.'),
  }),
};
const logoutSchema = {
  consumes: FORM_OR_JSON,
  body: unreadBody,
  response: consoleAnswers({
    200: adminSignedOut,
    303: seeOther('Signed out: to the unlock page, for a browser.'),
  }),
};

const loginRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const view = (request: FastifyRequest, next: string, error?: string): LoginView => {
    // The console's hook read the cookie (and its standing) for every request, this one included.
    const session = request.adminSession;
    return {
      next,
      secretConfigured: Boolean(context.secret),
      allowedEmails: context.allowedEmails.length,
      error,
      signedInAs: session ? subjectName(session.subject) : undefined,
    };
  };
  const showLogin = (request: FastifyRequest, reply: FastifyReply, next: string, status = 200, error?: string) =>
    sendPage(
      request,
      reply,
      () => ({ title: 'Unlock', body: loginBody(view(request, next, error)), scripts: [ACCOUNT_LOGIN_SCRIPT] }),
      status,
    );

  app.get('/__admin/login', { config: { adminAccess: 'public' }, schema: loginPageSchema }, async (request, reply) => {
    const next = safeNext(request.query.next);
    const current = view(request, next);
    const status: AdminLoginStatus = {
      ok: true,
      admin_available: true,
      methods: { secret: current.secretConfigured, account: true },
      signed_in: current.signedInAs !== undefined,
    };
    return sendData(request, reply, status, () => ({
      title: 'Unlock',
      body: loginBody(current),
      scripts: [ACCOUNT_LOGIN_SCRIPT],
    }));
  });

  const loginOptions = { config: { adminAccess: 'public' as const }, attachValidation: true, schema: loginSchema };
  app.post('/__admin/login', loginOptions, async (request, reply) => {
    // Read before the body is known to be valid, so a refused form still goes back to its page.
    const next = safeNext((request.body as { next?: unknown } | undefined)?.next);
    let subject: string;
    let method: 'secret' | 'admin_emails' | 'user_roles';
    try {
      if (request.validationError) throw request.validationError;
      const body = request.body;
      if ('secret' in body) {
        if (!context.secret)
          throw new GatewayError(
            401,
            'secret_login_disabled',
            'ADMIN_SECRET is not set on this server; sign in with an allowed account instead.',
          );
        if (!secretMatches(body.secret, context.secret))
          throw new GatewayError(401, 'invalid_admin_secret', 'That is not the admin secret of this server.');
        subject = SECRET_SUBJECT;
        method = 'secret';
      } else {
        const account = await verifyBackendSession(
          context.backend.forRoute(),
          body.access_token,
          context.allowedEmails,
          Boolean(context.secret),
          context.embeddedBackend,
        );
        subject = accountSubject(account.userId, account.email);
        method = account.allowedBy;
      }
    } catch (error) {
      if (error instanceof GatewayError && wantsHtml(request))
        return showLogin(request, reply, next, error.statusCode, error.message);
      throw error;
    }
    const issuedAtS = Math.floor(Date.now() / 1000);
    reply.setCookie(ADMIN_COOKIE, adminCookiePayload(subject, issuedAtS, newSessionNonce()), {
      signed: true,
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      maxAge: ADMIN_COOKIE_MAX_AGE_S,
      secure: request.protocol === 'https',
    });
    await recordConsoleAction(context, request, 'login', { subject, detail: { method } });
    if (wantsHtml(request)) return reply.code(303).header('location', next).send();
    const signedIn: AdminSignedIn = {
      ok: true,
      subject,
      method,
      expires_at: new Date((issuedAtS + ADMIN_COOKIE_MAX_AGE_S) * 1000).toISOString(),
    };
    return signedIn;
  });

  // Clearing the cookie is not enough (a copy of the value would still work until it expires): the
  // session itself is ended on the server before the answer.
  app.post('/__admin/logout', { config: { adminAccess: 'public' }, schema: logoutSchema }, async (request, reply) => {
    const signedValue = request.cookies[ADMIN_COOKIE];
    const session = await readAdminCookie(context.gate, signedValue);
    if (signedValue && session) {
      await endAdminSession(context.gate, signedValue, session);
      await recordConsoleAction(context, request, 'logout', { subject: session.subject });
    }
    reply.clearCookie(ADMIN_COOKIE, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
    });
    if (wantsHtml(request)) return reply.code(303).header('location', '/__admin/login').send();
    const signedOut: AdminSignedOut = { ok: true, signed_out: true };
    return signedOut;
  });
};

export default loginRoutes;

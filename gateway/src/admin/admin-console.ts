// /__admin/*: the admin console, one plugin per page family, behind three hooks that every route
// of this scope passes, in order:
// 1. readiness: until admin mode is ready every /__admin/* request is 403 admin_mode_not_ready;
// 2. same origin: every state-changing request must come from this server's own pages
//    (security/same-origin.ts; 403 csrf_refused), cookie or not;
// 3. access: a valid admin cookie whose account still stands (admin-standing.ts: not banned, not
//    deleted, still an admin; checked on every request), except the routes marked
//    `adminAccess: 'public'` (login, logout) or `'run-token'` (the browser proof's report,
//    authorised by its run token).
// Pages answer HTML to browsers and JSON to everything else (respond.ts); errors likewise.
import fastifyCookie from '@fastify/cookie';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { BackendError, type BackendTarget } from '../backend/backend-client.ts';
import { toGatewayError } from '../backend/backend-errors.ts';
import type { GatewayConfig } from '../config.ts';
import { badRequest, GatewayError, sendError } from '../http-errors.ts';
import { requireSameOrigin } from '../security/same-origin.ts';
import { ADMIN_COOKIE, readAdminCookie, type AdminGate } from './admin-cookie.ts';
import { standingUnknown, type AdminStanding } from './admin-standing.ts';
import { createAdminContext, type AdminTuning } from './admin-context.ts';
import browserProofRoutes from './browser-proof/proof-routes.ts';
import { installFormBodyParser } from './form-body.ts';
import { html } from './html.ts';
import loginRoutes from './login/login-routes.ts';
import patchRoutes from './patch/patch-routes.ts';
import { sendPage, wantsHtml } from './respond.ts';
import { adminEmailBootWarning } from './roles/email-confirmations.ts';
import usersRoutes from './users/users-routes.ts';
import reportsRoutes from './reports/reports-routes.ts';
import auditRoutes from './audit/audit-routes.ts';
import outboxRoutes from './outbox/outbox-routes.ts';
import rolesRoutes from './roles/roles-routes.ts';
import sessionsRoutes from './sessions/sessions-routes.ts';
import storageRoutes from './storage/storage-routes.ts';
import syncRoutes from './sync/sync-routes.ts';
import verifyRoutes from './verify/verify-routes.ts';
import { errorBody } from '#contracts/error-body.ts';
import { fullDocument, openApiAnswer } from '../openapi/openapi-routes.ts';
import { wildcardParams, withErrorBody } from '../route-schemas.ts';
import { consoleAnswers, seeOther } from './console-schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may reach an admin route: an admin session (default), anyone, or a browser-proof run token. */
    adminAccess?: 'session' | 'public' | 'run-token';
  }
}

export interface AdminConsoleOptions {
  config: GatewayConfig;
  backend: BackendTarget;
  gate: AdminGate;
  /** Rechecks account sessions against the login's rule (shared with the backend proxy). */
  standing: AdminStanding;
  repoDir: string;
  tuning?: Partial<AdminTuning>;
  localbaseToken?: string | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The error a handler threw, as status, code and sentence; undefined for what only the gateway's handler knows. */
function describeFailure(error: unknown): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (error instanceof BackendError) return toGatewayError(error);
  if (error instanceof ZodError) return badRequest(error);
  return undefined;
}

/** The console page a failed form was sent from (same origin only), else the verify page. */
function backLink(request: FastifyRequest): string {
  const referer = request.headers.referer;
  if (!referer) return '/__admin/verify';
  try {
    const url = new URL(referer);
    return url.host === request.headers.host && url.pathname.startsWith('/__admin/')
      ? `${url.pathname}${url.search}`
      : '/__admin/verify';
  } catch {
    return '/__admin/verify';
  }
}

const adminConsole: FastifyPluginAsync<AdminConsoleOptions> = async (app, options) => {
  const context = createAdminContext(options);
  const { gate } = context;
  const emailWarning = adminEmailBootWarning(options.config.admin);
  if (emailWarning) app.log.warn(emailWarning);

  await app.register(fastifyCookie, { secret: gate.signer, hook: 'onRequest' });
  installFormBodyParser(app);
  app.decorateRequest('adminSession', null);

  app.addHook('onRequest', async (request, reply) => {
    if (gate.ready) return;
    return sendError(
      reply,
      403,
      'admin_mode_not_ready',
      `Admin mode is not ready on this server: ${gate.notReadyReasons.join('; ')}.`,
      {
        admin_available: false,
      },
    );
  });

  app.addHook('onRequest', async (request, reply) =>
    SAFE_METHODS.has(request.method) ? undefined : requireSameOrigin(request, reply),
  );

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const cookieSession = await readAdminCookie(gate, request.cookies[ADMIN_COOKIE]);
    const verdict = cookieSession ? await options.standing.verdict(cookieSession, request.log) : 'lost';
    const session = verdict === 'stands' ? (cookieSession ?? null) : null;
    request.adminSession = session;
    const access = request.routeOptions.config?.adminAccess ?? 'session';
    if (access !== 'session' || session) return;
    if (verdict === 'unknown') throw standingUnknown();
    if (request.method === 'GET' && wantsHtml(request)) {
      return reply
        .code(303)
        .header('location', `/__admin/login?next=${encodeURIComponent(request.url)}`)
        .send();
    }
    return sendError(
      reply,
      401,
      'admin_login_required',
      'Sign in to the admin console first: POST /__admin/login with the admin secret or a backend session.',
    );
  });

  // Nothing the console answers may be cached: it is per session and changes with every action.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

  // A request its route's schema refuses arrives here too, as the GatewayError 400 of the gateway's
  // validator (error-handler.ts): a browser's form gets this page, naming the field, not JSON.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = wantsHtml(request) ? describeFailure(error) : undefined;
    // JSON (and anything the gateway's own handler maps, such as a body too large) goes up to it.
    if (!failure) throw error;
    if (failure.statusCode >= 500) request.log.warn({ err: error }, 'admin request failed');
    return sendPage(
      request,
      reply,
      () => ({
        title: 'Something went wrong',
        body: html`<h1>That did not work</h1>
<p class="banner banner-bad" role="alert">${failure.message}</p>
<p class="muted">Error code <code>${failure.code}</code> (HTTP ${failure.statusCode}). Nothing else was changed by this request.</p>
<p><a href="${backLink(request)}">Go back</a> · <a href="/__admin/verify">Verify</a></p>`,
      }),
      failure.statusCode,
    );
  });

  app.addHook('onClose', async () => {
    await context.proofs.close();
  });

  await app.register(loginRoutes, { context });
  await app.register(verifyRoutes, { context });
  await app.register(patchRoutes, { context });
  await app.register(syncRoutes, { context });
  await app.register(storageRoutes, { context });
  await app.register(usersRoutes, { context });
  await app.register(reportsRoutes, { context });
  await app.register(auditRoutes, { context });
  await app.register(rolesRoutes, { context });
  await app.register(sessionsRoutes, { context });
  await app.register(outboxRoutes, { context });
  await app.register(browserProofRoutes, { context });

  // The whole OpenAPI document, the console's routes included (openapi/openapi-routes.ts).
  const documentSchema = { response: withErrorBody({ 200: openApiAnswer }) };
  app.get('/__admin/openapi.json', { schema: documentSchema }, async () => fullDocument(app));

  const toVerify = seeOther('To /__admin/verify (by way of the unlock page without a session, for a browser).');
  const home = { schema: { response: consoleAnswers({ 303: toVerify }) } };
  app.get('/__admin', home, async (_request, reply) => reply.code(303).header('location', '/__admin/verify').send());
  app.get('/__admin/', home, async (_request, reply) => reply.code(303).header('location', '/__admin/verify').send());
  // Unknown admin paths still pass the hooks above (so they reveal nothing before sign-in). Every
  // method of every path answers the same 404, so the OpenAPI document leaves this route out.
  const unknownPage = { hide: true, params: wildcardParams, response: { 404: errorBody } };
  app.all('/__admin/*', { schema: unknownPage }, async (request, reply) =>
    sendError(reply, 404, 'not_found', 'The admin console has no such page.', { path: request.url.split('?')[0] }),
  );
};

export default adminConsole;

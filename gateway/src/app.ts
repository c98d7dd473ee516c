// buildGateway: the gateway's Fastify app with every route family registered in one place.
// It starts nothing by itself (main.ts listens); tests build it and use inject() or listen(0).
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { repoRoot } from '#db/paths.ts';
import { createAdminGate } from './admin/admin-cookie.ts';
import { AdminStanding } from './admin/admin-standing.ts';
import { ENDED_SESSIONS_FILE } from './admin/ended-sessions.ts';
import { SharedEndedSessions } from './admin/shared-ended-sessions.ts';
import adminConsole from './admin/admin-console.ts';
import type { AdminTuning } from './admin/admin-context.ts';
import authRoutes from './auth/auth-routes.ts';
import backupRoutes from './auth/backup-routes.ts';
import profileRoutes from './auth/profile-routes.ts';
import { BackendClient, type BACKEND_DEADLINES, type BackendTarget } from './backend/backend-client.ts';
import type { GatewayConfig } from './config.ts';
import { installErrorHandling } from './error-handler.ts';
import caRoutes from './https/ca-routes.ts';
import { installHttpsRedirect } from './https/https-redirect.ts';
import { HttpsService } from './https/https-service.ts';
import type { NetworkInterfaces } from './lan/lan-addresses.ts';
import { installOpenApi, registerPublicDocument } from './openapi/openapi-routes.ts';
import leaderboardRoutes from './leaderboard/leaderboard-routes.ts';
import { PipRelay } from './pip/pip-relay.ts';
import pipRoutes from './pip/pip-routes.ts';
import { SharedPipRelay } from './pip/shared-pip-relay.ts';
import type { TimerRelay } from './pip/timer-relay.ts';
import { PhaseEndScheduler } from './pip/phase-end-push.ts';
import backendProxy, { BACKEND_PREFIX, type BackendProxyOptions } from './proxy/backend-proxy.ts';
import { PushService } from './push/push-service.ts';
import pushRoutes from './push/push-routes.ts';
import type { PushWorkerSettings } from './push/push-worker.ts';
import { systemResolver } from './push/web-push-sender.ts';
import appShell from './routes/app-shell.ts';
import companionRoute from './routes/companion.ts';
import clientConfig from './routes/client-config.ts';
import errorsSink, { type ErrorLogRotation } from './routes/errors-sink.ts';
import health, { type DatabaseFacts } from './routes/health.ts';
import serviceWorker from './routes/service-worker.ts';
import smallRoutes from './routes/small-routes.ts';
import { AccountLoginBudget, DEFAULT_ACCOUNT_LOGIN_BUDGET } from './security/account-login-limits.ts';
import type { Budget } from './security/rate-limits.ts';
import { SharedAccountLoginBudget } from './security/shared-account-login-budget.ts';
import { sharedRateLimitStore } from './security/shared-rate-limit-store.ts';
import type { SharedState } from './district/shared-state.ts';
import { startSharedStateHousekeeping } from './district/shared-state-housekeeping.ts';
import { BODY_LIMITS } from './security/body-limits.ts';
import { installJsonBodyParser } from './security/json-body.ts';
import { DEFAULT_RATE_LIMITS, installRateLimits, type RateLimitSettings } from './security/rate-limits.ts';
import { installSameOriginGuard } from './security/same-origin.ts';
import { appPolicyDirectives, installSecurityHeaders } from './security/security-headers.ts';
import { isServerOwner } from './update/update-owner.ts';
import updateRoutes from './update/update-routes.ts';
import { webPaths } from './web-dist.ts';

export interface GatewayOptions {
  config: GatewayConfig;
  /** The backend this gateway fronts: localbase in this process, or a hosted project. */
  backend: BackendTarget;
  /** The checkout whose version, service worker and web/dist are served and self-updated. */
  repoDir?: string;
  logger?: FastifyServerOptions['logger'];
  /** Overrides for tests: per-address budgets, health probe timing, deadlines, log rotation. */
  rateLimits?: Partial<RateLimitSettings>;
  /** The per-account budget of failed passwords (tests: a clock, other sizes). */
  accountLogins?: Partial<Budget> & { now?: () => number };
  /** Probe timing (tests); measureAtStart for the server that `npm start` runs. */
  health?: { probeTimeoutMs?: number; cacheMs?: number; measureAtStart?: boolean };
  /** Deadlines of the wrapper routes' backend calls (BACKEND_DEADLINES). */
  backendDeadlines?: Partial<typeof BACKEND_DEADLINES>;
  proxy?: Pick<BackendProxyOptions, 'timeouts' | 'bodyLimitBytes' | 'jsonBodyLimitBytes'>;
  errorLog?: Partial<ErrorLogRotation>;
  /** A relay with other ping or slow-client limits (tests). */
  relay?: TimerRelay;
  /** The admin console's clock and lifetimes (tests). */
  admin?: Partial<AdminTuning>;
  /** Start-alert delivery overrides (tests: plain-HTTP receivers, short polls). */
  push?: Partial<PushWorkerSettings>;
  /** The embedded localbase's management token, which the admin console's apply form fills in. */
  localbaseToken?: string;
  /** The embedded localbase's database engine, which /api/health and the Verify page name. */
  database?: DatabaseFacts;
  /**
   * What the servers of a district share (district/open-shared-state.ts): rate limits, password
   * budgets, ended admin sessions, the push identity and the timer relay's pairings, snapshots and
   * actions are kept there instead of in this process.
   * Its owner opens and closes it.
   */
  sharedState?: SharedState;
  /** The clock of the update check's once-a-minute fetch (tests). */
  updateCheckNow?: () => number;
  /** HTTPS for the local network (main.ts sets it up); unset: plain HTTP only. */
  https?: HttpsService;
  /** The machine's network interfaces, which client config reads the LAN address from (tests). */
  networkInterfaces?: () => NetworkInterfaces;
}

export interface Gateway {
  app: FastifyInstance;
  relay: TimerRelay;
  /** Start-alert delivery: not running until push.start() (main.ts calls it once listening). */
  push: PushService;
  /** The phase-end pushes the relay schedules for students who name themselves. */
  phaseEnds: PhaseEndScheduler;
  /** HTTPS: its certificate, its port, and `urlFor(host)`, the HTTPS address of a host a visitor used. */
  https: HttpsService;
}

/**
 * Credentials never reach a log line: if a request's headers or body are ever logged (a custom
 * serializer, a debug statement), the Authorization and Cookie headers, and the admin console's
 * personal access token, secret and session token fields are replaced by pino before writing.
 */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.apikey',
  'res.headers["set-cookie"]',
  'req.body.access_token',
  'req.body.secret',
  'req.body.password',
  'body.access_token',
  'body.secret',
  'body.password',
];

function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger || logger === true)
    return logger === true ? { redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' } } : logger;
  return { ...logger, redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' } };
}

export async function buildGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const repoDir = options.repoDir ?? repoRoot;
  const web = webPaths(repoDir);
  const app = Fastify({
    logger: withRedaction(options.logger ?? false),
    trustProxy: false,
    bodyLimit: BODY_LIMITS.json,
  });
  installErrorHandling(app);
  // The OpenAPI generator collects each route's schemas as it is added, so it comes first.
  await installOpenApi(app);
  // Before any route: these apply to every route family, present and future.
  installJsonBodyParser(app);
  installSecurityHeaders(app);
  installSameOriginGuard(app);
  const https = options.https ?? HttpsService.off('this server was started without it');
  installHttpsRedirect(app, https);
  const { sharedState } = options;
  await installRateLimits(
    app,
    { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    sharedState ? sharedRateLimitStore(sharedState) : undefined,
  );
  if (sharedState) {
    const stopHousekeeping = startSharedStateHousekeeping(sharedState, app.log);
    app.addHook('onClose', async () => stopHousekeeping());
  }

  const backend = new BackendClient(options.backend, options.backendDeadlines);
  const { now: accountClock, ...accountBudget } = options.accountLogins ?? {};
  const budget = { ...DEFAULT_ACCOUNT_LOGIN_BUDGET, ...accountBudget };
  const accountLogins = sharedState
    ? new SharedAccountLoginBudget(budget, sharedState, app.log)
    : new AccountLoginBudget(budget, accountClock);
  const adminGate = createAdminGate({
    enabled: config.admin.enabled,
    secret: config.admin.secret,
    serviceRoleKey: options.backend.serviceRoleKey,
    endedSessionsFile: path.join(config.dataDir, ENDED_SESSIONS_FILE),
    ...(sharedState ? { ended: new SharedEndedSessions(sharedState) } : {}),
  });
  const adminStanding = new AdminStanding({
    gate: adminGate,
    backend,
    allowedEmails: config.admin.emails,
    ...(options.admin?.now ? { now: options.admin.now } : {}),
  });
  // In a district the relay's pairings, snapshots and actions are shared: a phone and its focus
  // page may reach different servers.
  const relay = options.relay ?? (sharedState ? new SharedPipRelay(sharedState, { log: app.log }) : new PipRelay());
  // Before the server stops accepting: open SSE streams would otherwise keep close() waiting.
  app.addHook('preClose', async () => relay.close());
  const push = new PushService({
    config,
    backend: options.backend,
    log: app.log,
    ...(options.push ? { settings: options.push } : {}),
    ...(sharedState ? { sharedState } : {}),
  });
  app.addHook('preClose', async () => push.stop());
  // Storage URLs handed to browsers: a hosted backend is public; localbase is reached through us.
  const publicBackendBase = config.backend ? config.backend.url : BACKEND_PREFIX;

  registerPublicDocument(app);
  await app.register(smallRoutes, {
    repoDir,
    ai: config.ai,
    isOwner: (request) => isServerOwner(adminStanding, request),
  });
  await app.register(clientConfig, {
    anonKey: options.backend.anonKey,
    publicUrl: config.publicUrl,
    https,
    // A hosted project sends its auth mail; localbase only with SMTP_URL (else its outbox keeps it).
    sendsMail: Boolean(config.backend ?? config.smtpUrl),
    ...(options.networkInterfaces ? { networkInterfaces: options.networkInterfaces } : {}),
  });
  await app.register(health, {
    backendUrl: options.backend.url,
    anonKey: options.backend.anonKey,
    ...(options.database ? { database: options.database } : {}),
    ...options.health,
  });
  // Images may come from a hosted backend's storage; with localbase they come through /__backend.
  const appPolicy = appPolicyDirectives(config.backend ? new URL(config.backend.url).origin : undefined);
  await app.register(serviceWorker, { repoDir, templateFile: web.swTemplate, appPolicy });
  await app.register(errorsSink, {
    logDir: config.logDir,
    ...(options.errorLog ? { rotation: options.errorLog } : {}),
  });
  const phaseEnds = new PhaseEndScheduler(async (token, end) => {
    await backend.rpc(
      'community_schedule_phase_end',
      { p_phase: end?.phase ?? null, p_ends_at: end ? new Date(end.endsAtMs).toISOString() : null },
      { userToken: token },
    );
  }, app.log);
  await app.register(pipRoutes, { relay, pairing: config.pipPairing, phaseEnds });
  await app.register(authRoutes, { backend, accountLogins });
  await app.register(profileRoutes, { backend, publicBackendBase });
  await app.register(backupRoutes, { backend });
  await app.register(leaderboardRoutes, { backend });
  await app.register(pushRoutes, { push });
  await app.register(backendProxy, {
    backendUrl: options.backend.url,
    anonKey: options.backend.anonKey,
    serviceRoleKey: options.backend.serviceRoleKey,
    adminGate,
    adminStanding,
    accountLogins,
    pushEndpoints: {
      resolve: options.push?.resolveHost ?? systemResolver,
      allowPlainHttpLoopback: options.push?.allowPlainHttp ?? config.pushAllowPlainHttp ?? false,
    },
    ...options.proxy,
  });
  await app.register(updateRoutes, {
    repoDir,
    logDir: config.logDir,
    settings: config.update,
    adminGate,
    adminStanding,
    now: options.updateCheckNow,
  });
  await app.register(adminConsole, {
    config,
    backend: options.backend,
    gate: adminGate,
    standing: adminStanding,
    repoDir,
    localbaseToken: options.localbaseToken,
    ...(options.admin ? { tuning: options.admin } : {}),
  });
  await app.register(caRoutes, { https });
  await app.register(companionRoute, { distDir: path.join(repoDir, 'companion', 'ui', 'dist') });
  await app.register(appShell, { distDir: web.distDir, appPolicy });
  return { app, relay, push, phaseEnds, https };
}

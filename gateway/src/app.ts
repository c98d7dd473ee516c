// buildGateway: the gateway's Fastify app with every route family registered in one place.
// It starts nothing by itself (main.ts listens); tests build it and use inject() or listen(0).
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { repoRoot } from '../../tools/db/paths.ts';
import { createAdminGate } from './admin/admin-cookie.ts';
import adminPlaceholder from './admin/admin-placeholder.ts';
import authRoutes from './auth/auth-routes.ts';
import backupRoutes from './auth/backup-routes.ts';
import profileRoutes from './auth/profile-routes.ts';
import { BackendClient, type BackendTarget } from './backend/backend-client.ts';
import type { GatewayConfig } from './config.ts';
import { installErrorHandling } from './http-errors.ts';
import leaderboardRoutes from './leaderboard/leaderboard-routes.ts';
import { PipRelay } from './pip/pip-relay.ts';
import pipRoutes from './pip/pip-routes.ts';
import backendProxy, { BACKEND_PREFIX } from './proxy/backend-proxy.ts';
import { PushService } from './push/push-service.ts';
import pushRoutes from './push/push-routes.ts';
import type { PushWorkerSettings } from './push/push-worker.ts';
import appShell from './routes/app-shell.ts';
import errorsSink from './routes/errors-sink.ts';
import health from './routes/health.ts';
import serviceWorker from './routes/service-worker.ts';
import smallRoutes from './routes/small-routes.ts';
import updateRoutes from './update/update-routes.ts';
import { webPaths } from './web-dist.ts';

export interface GatewayOptions {
  config: GatewayConfig;
  /** The backend this gateway fronts: localbase in this process, or a hosted project. */
  backend: BackendTarget;
  /** The checkout whose version, service worker and web/dist are served and self-updated. */
  repoDir?: string;
  logger?: FastifyServerOptions['logger'];
  /** Overrides for tests: the signup/login/check limit and the health probe timing. */
  rateLimit?: { max: number; windowMs: number };
  health?: { probeTimeoutMs?: number; cacheMs?: number };
  /** A relay with other ping or slow-client limits (tests). */
  relay?: PipRelay;
  /** Start-alert delivery overrides (tests: plain-HTTP receivers, short polls). */
  push?: Partial<PushWorkerSettings>;
}

export interface Gateway {
  app: FastifyInstance;
  relay: PipRelay;
  /** Start-alert delivery: not running until push.start() (main.ts calls it once listening). */
  push: PushService;
}

export async function buildGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const repoDir = options.repoDir ?? repoRoot;
  const web = webPaths(repoDir);
  const app = Fastify({ logger: options.logger ?? false, trustProxy: false, bodyLimit: 1024 * 1024 });
  installErrorHandling(app);

  const backend = new BackendClient(options.backend);
  const adminGate = createAdminGate({ enabled: config.admin.enabled, secret: config.admin.secret, serviceRoleKey: options.backend.serviceRoleKey });
  const relay = options.relay ?? new PipRelay();
  // Before the server stops accepting: open SSE streams would otherwise keep close() waiting.
  app.addHook('preClose', async () => relay.close());
  const push = new PushService({ config, backend: options.backend, log: app.log, ...(options.push ? { settings: options.push } : {}) });
  app.addHook('preClose', async () => push.stop());
  // Storage URLs handed to browsers: a hosted backend is public; localbase is reached through us.
  const publicBackendBase = config.backend ? config.backend.url : BACKEND_PREFIX;

  await app.register(smallRoutes, { repoDir, ai: config.ai });
  await app.register(health, { backendUrl: options.backend.url, anonKey: options.backend.anonKey, ...options.health });
  await app.register(serviceWorker, { repoDir, templateFile: web.swTemplate });
  await app.register(errorsSink, { logDir: config.logDir });
  await app.register(pipRoutes, { relay });
  await app.register(authRoutes, { backend, ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) });
  await app.register(profileRoutes, { backend, publicBackendBase });
  await app.register(backupRoutes, { backend });
  await app.register(leaderboardRoutes, { backend });
  await app.register(pushRoutes, { push });
  await app.register(backendProxy, {
    backendUrl: options.backend.url,
    anonKey: options.backend.anonKey,
    serviceRoleKey: options.backend.serviceRoleKey,
    adminGate,
  });
  await app.register(updateRoutes, { repoDir, logDir: config.logDir, settings: config.update, adminGate });
  await app.register(adminPlaceholder);
  await app.register(appShell, { distDir: web.distDir });
  return { app, relay, push };
}

// localbase: the embedded, Supabase-compatible backend. One Fastify server on loopback speaking
// the subset of Supabase's APIs that docs/localbase.md lists (auth, rest, storage, realtime,
// management, functions) over one database: the embedded PostgreSQL (or PGlite) in DATA_DIR, a
// DATABASE_URL, or a Database the caller already opened.
import path from 'node:path';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import type { Database } from '#db/database.ts';
import { openDatabaseOrTakeEarly } from '#db/early-open.ts';
import type { EngineSetting } from '#config/env.ts';
import { installApiKeyGate } from './src/api-key.ts';
import { installAuthSchema } from './src/auth/auth-schema.ts';
import { outboxMailer, smtpMailer } from './src/auth/mail.ts';
import { authRoutes } from './src/auth/routes.ts';
import { sessionExists } from './src/auth/sessions.ts';
import { functionsRoutes } from './src/functions.ts';
import { startHousekeeping } from './src/housekeeping.ts';
import { readSupabaseConfig } from './src/supabase-config.ts';
import { JSON_BODY_LIMIT_BYTES } from './src/json-body.ts';
import { importSigningKey, TokenVerifier, type VerificationKeys } from './src/jwt.ts';
import { loadOrCreateKeys, shareProjectKeys } from './src/keys.ts';
import { logDatabaseEvent } from './open-database-early.ts';
import { managementRoutes } from './src/management.ts';
import { installCapture, syncCaptureTriggers } from './src/realtime/capture.ts';
import { RealtimeHub } from './src/realtime/hub.ts';
import { installVisibility } from './src/realtime/visibility.ts';
import { authorize, installAuthorization } from './src/realtime/authorization.ts';
import { REALTIME_MAX_FRAME_BYTES, realtimeRoutes } from './src/realtime/socket.ts';
import { withOwnerTransaction } from './src/request-transaction.ts';
import { installSessionGuard } from './src/session-guard.ts';
import { DEFAULT_HOISTED_SETTINGS } from './src/rest/calls.ts';
import { Catalog, DEFAULT_SCHEMA } from './src/rest/catalog.ts';
import type { TxEnd } from './src/rest/prefer.ts';
import { preRequestSql } from './src/rest/pre-request.ts';
import { restRoutes } from './src/rest/routes.ts';
import { storageRoutes } from './src/storage/routes.ts';

export interface LocalbaseOptions {
  dataDir: string;
  databaseUrl?: string;
  database?: Database;
  host?: string;
  port?: number;
  logger?: boolean | object;
  /**
   * Schemas the Data API exposes, the first being the default (PostgREST's db-schemas, Supabase's
   * `[api] schemas`). Default: public only.
   */
  schemas?: readonly string[];
  /** PostgREST's db-max-rows: the most rows one response carries. Default: no limit. */
  maxRows?: number;
  /** PostgREST's db-aggregates-enabled: `count()`, `col.sum()`, ... in `select`. Default: off (400 PGRST123). */
  aggregates?: boolean;
  /** PostgREST's db-plan-enabled: `Accept: application/vnd.pgrst.plan` answers the query plan. Default: off (406 PGRST107). */
  plans?: boolean;
  /** PostgREST's db-tx-end: how a request's transaction ends, and whether `Prefer: tx=` may choose. Default: `commit`. */
  txEnd?: TxEnd;
  /**
   * PostgREST's db-pre-request: a function (`name` or `schema.name`; unqualified: the first exposed
   * schema) called in each Data API request's transaction before its statement. Default: none.
   */
  preRequest?: string;
  /**
   * PostgREST's db-hoisted-tx-settings: which `SET` clauses of a called function apply to the whole
   * request's transaction. Default: statement_timeout, plan_filter.statement_cost_limit,
   * default_transaction_isolation.
   */
  hoistedTxSettings?: readonly string[];
  /**
   * GoTrue's SITE_URL: where e-mail links lead after verifying when no allowed `redirect_to` is
   * given, and whose host every redirect may go to. Default: localbase's own URL.
   */
  siteUrl?: string;
  /** GoTrue's uri_allow_list: more redirect targets, as globs (`https://app.example/**`). */
  redirectAllowList?: readonly string[];
  /** GoTrue's API_EXTERNAL_URL: localbase's URL as the readers of the mail reach it. Default: its own URL. */
  externalUrl?: string;
  /** SMTP server for auth mail (`smtp://user:pass@host:587`); without one, mail goes to the outbox. */
  smtpUrl?: string;
  /**
   * GoTrue's EXTERNAL_ANONYMOUS_USERS_ENABLED (the CLI's `enable_anonymous_sign_ins`): whether
   * signInAnonymously() creates users. Default: off, as on a new hosted project.
   */
  anonymousSignIns?: boolean;
  /**
   * GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED (the CLI's `[auth.email] double_confirm_changes`):
   * whether an e-mail change waits for a link followed from the current address as well as the
   * new one. Default: what the checkout's supabase/config.toml says, true when it says nothing.
   */
  doubleConfirmEmailChanges?: boolean;
  /**
   * bcrypt's cost for new password hashes, 4 to 31. Default: GoTrue's 10, which every entry point
   * of the product uses (there is no setting for it). The test stacks take bcrypt's least, 4, as
   * Devise and Django do in their own tests: their passwords are throwaway, and at 10 bcrypt was
   * an eighth of `npm test`'s CPU. A stored hash is checked at the cost it was made with.
   */
  passwordHashCost?: number;
  /** LOCALBASE_ENGINE: the embedded engine in DATA_DIR; unset: PostgreSQL where it can run (db/engine-choice.ts). */
  engine?: EngineSetting | undefined;
}

export interface Localbase {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  accessToken: string;
  jwtSecret: string;
  dataDir: string;
  database: Database;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 54321;
export const DEFAULT_HOST = '127.0.0.1';
/** A request that has not finished by then is answered 503 by Fastify, so one slow query cannot hang a client. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** How long close() lets requests in flight finish before it closes their connections. */
export const CLOSE_GRACE_MS = 5_000;

// What localbase promises besides the server itself: the limits a client meets (docs/localbase.md)
// and where it keeps its keys. Exported here, its one public entry, for the tests, checks and
// benches outside localbase that hold it to them.
export { ACCESS_TOKEN_LIFETIME_SECONDS } from './src/auth/sessions.ts';
export { BCRYPT_COST, BCRYPT_MIN_COST } from './src/auth/users.ts';
export { keysFile } from './src/keys.ts';
export {
  REALTIME_MAX_BINDINGS_PER_CHANNEL,
  REALTIME_MAX_CHANNELS_PER_CLIENT,
  TOO_MANY_CHANNELS_REASON,
} from './src/realtime/socket.ts';
export { STATEMENT_TIMEOUTS_MS } from './src/statement-timeouts.ts';

/**
 * localbase's own objects in the database (schema `_localbase`, `realtime.send`, auth's tables
 * beside GoTrue's), installed at every start and skipped while current (src/installed-sql.ts). Also
 * run by the move to PostgreSQL on both databases, so that both hold the same tables.
 */
export async function installLocalbaseObjects(pool: Database['pool']): Promise<void> {
  await installSessionGuard(pool);
  await installCapture(pool);
  await installVisibility(pool);
  await installAuthorization(pool);
  await installAuthSchema(pool);
}

export async function startLocalbase(options: LocalbaseOptions): Promise<Localbase> {
  const dataDir = path.resolve(options.dataDir);
  // Read before anything opens: a config.toml localbase cannot follow stops it at once.
  const doubleConfirmEmailChanges =
    options.doubleConfirmEmailChanges ?? (await readSupabaseConfig()).doubleConfirmEmailChanges;
  let keys = await loadOrCreateKeys(dataDir);
  performance.mark('studyhall:localbase:keys-read');
  const ownsDatabase = !options.database;
  const database =
    options.database ??
    // The launcher may have started opening it already (open-database-early.ts).
    (await openDatabaseOrTakeEarly({
      dataDir,
      databaseUrl: options.databaseUrl,
      engine: options.engine,
      // The embedded engine's own events (its first start, a fallback, a statement cut at its timeout).
      log: logDatabaseEvent,
    }));
  let app: FastifyInstance | undefined;
  let hub: RealtimeHub | undefined;
  let stopHousekeeping = () => {};
  try {
    const { pool } = database;
    await installLocalbaseObjects(pool);
    performance.mark('studyhall:localbase:objects-installed');
    // Every server on a DATABASE_URL signs and verifies with the same keys (src/keys.ts).
    if (options.databaseUrl) keys = await shareProjectKeys(pool, dataDir, keys);
    const mailer = options.smtpUrl ? smtpMailer(options.smtpUrl) : outboxMailer(pool);
    const schemas = options.schemas && options.schemas.length > 0 ? [...options.schemas] : [DEFAULT_SCHEMA];
    const catalog = new Catalog(pool, schemas);
    // Sessions are signed ES256 (as hosted projects created now sign them); the anon and
    // service_role keys, and sessions signed before, stay HS256: every API verifies both.
    const signingKey = await importSigningKey(keys.signingKey);
    const verificationKeys: VerificationKeys = {
      secret: keys.jwtSecret,
      publicKeys: new Map([[signingKey.kid, signingKey.publicKey]]),
    };
    const verifier = new TokenVerifier(verificationKeys);

    app = Fastify({
      logger: options.logger ?? false,
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      requestTimeout: REQUEST_TIMEOUT_MS,
    });
    const log = (error: unknown) => app?.log.error({ err: error }, 'localbase background task failed');
    // The schema cache loads while the rest of the server starts, not before it: only Data API
    // requests need it, and one that comes first waits for the load in progress (Catalog.current).
    // On PGlite the load shares the one thread and session, so its 300 ms of a warm start overlap
    // Fastify's setup rather than vanish. A failed load is logged and tried again by the first
    // request that needs the cache.
    catalog.reload().catch(log);
    // With more than one session (not PGlite), realtime listens for the changes other servers on
    // the database commit, on a connection of its own (src/realtime/wakeups.ts), and spreads one
    // change's read checks over up to a quarter of the pool (at most 4), leaving the rest to requests.
    hub = new RealtimeHub(
      pool,
      log,
      database.kind === 'postgres'
        ? {
            listen: () => new pg.Client(pool.options as pg.ClientConfig),
            checkConnections: Math.min(4, Math.max(1, Math.floor((pool.options.max ?? 10) / 4))),
          }
        : {},
    );
    const realtime = hub;
    const host = options.host ?? DEFAULT_HOST;
    const port = options.port ?? DEFAULT_PORT;

    await app.register(websocket, { options: { maxPayload: REALTIME_MAX_FRAME_BYTES } });
    // The issuer is only known once listening (port 0), so auth reads it through a function.
    const listening = { url: `http://${host}:${port}` };
    // Each API family sits in a scope of its own behind the API-key gate (api-key.ts).
    const gated = (openRoutes: readonly string[] = []) => ({ keys, openRoutes });
    await app.register(
      async (scope) => {
        // The browser is sent to /authorize (signInWithOAuth) without a key, as the hosted gateway allows.
        installApiKeyGate(scope, gated(['/auth/v1/authorize']));
        await scope.register(authRoutes, {
          pool,
          verificationKeys,
          signingKey,
          anonymousSignIns: options.anonymousSignIns ?? false,
          issuer: () => `${listening.url}/auth/v1`,
          mailer,
          redirects: {
            get siteUrl() {
              return options.siteUrl ?? listening.url;
            },
            allowList: options.redirectAllowList ?? [],
          },
          linkBase: () => `${options.externalUrl ?? listening.url}/auth/v1`,
          doubleConfirmEmailChanges,
          passwordHashCost: options.passwordHashCost,
        });
      },
      { prefix: '/auth/v1' },
    );
    await app.register(
      async (scope) => {
        installApiKeyGate(scope, gated());
        await scope.register(restRoutes, {
          pool,
          catalog,
          verifier,
          schemas,
          maxRows: options.maxRows,
          aggregates: options.aggregates ?? false,
          plans: options.plans ?? false,
          txEnd: options.txEnd ?? 'commit',
          preRequest:
            options.preRequest === undefined
              ? undefined
              : preRequestSql(options.preRequest, schemas[0] ?? DEFAULT_SCHEMA),
          hoistedSettings: options.hoistedTxSettings ?? DEFAULT_HOISTED_SETTINGS,
          onWrite: () => void realtime.poke(),
        });
      },
      { prefix: '/rest/v1' },
    );
    await app.register(
      async (scope) => {
        // Public objects and signed URLs are opened without a key, as <img src> does on a hosted
        // project; a request on these routes that is something else asks for the key itself.
        installApiKeyGate(
          scope,
          gated([
            '/storage/v1/object/public/:bucket/*',
            '/storage/v1/object/sign/:bucket/*',
            '/storage/v1/object/upload/sign/:bucket/*',
            '/storage/v1/render/image/public/:bucket/*',
            '/storage/v1/render/image/sign/:bucket/*',
          ]),
        );
        await scope.register(storageRoutes, {
          pool,
          verifier,
          root: path.join(dataDir, 'storage'),
          jwtSecret: keys.jwtSecret,
          tokenKeys: verificationKeys,
          keys,
        });
      },
      { prefix: '/storage/v1' },
    );
    await app.register(
      async (scope) => {
        installApiKeyGate(scope, gated());
        await scope.register(realtimeRoutes, {
          hub: realtime,
          jwtSecret: verificationKeys,
          sessionLive: (sessionId) =>
            withOwnerTransaction(pool, (client) => sessionExists(client, sessionId), { readOnly: true }),
          authorize: (topic, token, headers, extensions, access) =>
            authorize(pool, topic, token, headers, extensions, access),
        });
      },
      { prefix: '/realtime/v1' },
    );
    await app.register(functionsRoutes, { prefix: '/functions/v1' });
    await app.register(managementRoutes, {
      pool,
      outbox: !options.smtpUrl,
      sharedSession: database.kind === 'pglite',
      accessToken: keys.accessToken,
      onSchemaMaybeChanged: async () => {
        await catalog.reload();
        await syncCaptureTriggers(pool);
        realtime.forgetShapes();
        void realtime.poke();
      },
    });

    performance.mark('studyhall:localbase:routes-registered');
    await realtime.start();
    await app.listen({ host, port });
    performance.mark('studyhall:localbase:listening');
    const address = app.server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    listening.url = `http://${host}:${actualPort}`;
    stopHousekeeping = startHousekeeping(pool, log);

    const server = app;
    let closing: Promise<void> | undefined;
    return {
      url: listening.url,
      anonKey: keys.anonKey,
      serviceRoleKey: keys.serviceRoleKey,
      accessToken: keys.accessToken,
      jwtSecret: keys.jwtSecret,
      dataDir,
      database,
      close: () => {
        closing ??= (async () => {
          stopHousekeeping();
          await realtime.stop();
          // Requests in flight get CLOSE_GRACE_MS to finish; then their connections are closed.
          // Without it, a client that never finishes sending a request holds the close until
          // Node's headers timeout (60 s, checked every 30 s).
          const grace = setTimeout(() => server.server.closeAllConnections(), CLOSE_GRACE_MS);
          await server.close().finally(() => clearTimeout(grace));
          mailer.close();
          if (ownsDatabase) await database.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    stopHousekeeping();
    await hub?.stop();
    await app?.close().catch(() => {});
    if (ownsDatabase) await database.close().catch(() => {});
    throw error;
  }
}

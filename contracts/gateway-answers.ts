// What the gateway's small app routes answer (docs/api.md): the ping, version, AI flags, client
// config, health, Web Push key and the error-report sink. The gateway declares its routes with these
// schemas (the answer is serialised through them) and docs/openapi.json is generated from them.
import { z } from 'zod';

export const pingAnswer = z.object({ ok: z.literal(true), at: z.string().describe('The server clock, ISO 8601.') });

export const versionAnswer = z.object({
  version: z.string().describe('The package version.'),
  git_sha: z.string().nullable().describe('The checked-out commit, null outside a git checkout.'),
  commit_message: z.string().nullable().describe("The commit's subject; null unless asked by the server's owner."),
  pwa_cache: z.string().describe('The Cache Storage name the service worker uses; changes with every commit.'),
});

export const aiConfigAnswer = z
  .object({ openai: z.boolean(), gemini: z.boolean() })
  .describe('Whether a key is configured for each provider; never the key.');

export const clientConfigAnswer = z.object({
  backend_url: z.string().describe('Where the app reaches the backend: always this gateway (/__backend).'),
  anon_key: z.string().describe("The backend's anon key (public by design)."),
  app_url: z
    .string()
    .nullable()
    .describe(
      'Where students and phones on the network open the app, without a trailing slash: PUBLIC_URL, ' +
        'else the LAN address, or null when only this computer reaches the server.',
    ),
  companion_urls: z
    .array(z.string())
    .describe(
      "http://<LAN address>:<port> for each IPv4 interface that is not loopback: the phone remote's server URL.",
    ),
  https_url: z.string().nullable().describe('Where the app is a secure context, without a trailing slash, or null.'),
  sends_mail: z
    .boolean()
    .describe("Whether the backend's auth mail reaches the student's mailbox (false: it waits in the outbox)."),
});

export const backendHealth = z.object({
  status: z.enum(['up', 'down']),
  latency_ms: z.number(),
  http_status: z.number().nullable(),
  error: z.string().nullable(),
});

export const databaseFacts = z.object({
  engine: z.string().describe('"PostgreSQL 15.18 (embedded)", "PGlite 0.5.14 (PostgreSQL 18.6)", ...'),
  notice: z.string().nullable().describe('Why it is not the default engine, or null.'),
  legacy_pglite: z.boolean().describe('PGlite kept because DATA_DIR holds a PGlite database.'),
});

export const healthAnswer = z.object({
  ok: z.boolean().describe('Whether the backend answered its health check.'),
  server: z.object({ status: z.literal('up'), uptime_s: z.number() }),
  backend: backendHealth,
  database: databaseFacts.optional().describe('The embedded localbase database; absent with a hosted backend.'),
  measured_at: z.string(),
  cached: z.boolean(),
  max_age_s: z.number(),
});

export const vapidKeyAnswer = z.object({
  public_key: z.string().describe('The applicationServerKey for pushManager.subscribe().'),
});

/** An accepted write with nothing else to say. */
export const okAnswer = z.object({ ok: z.literal(true) });

export type VersionAnswer = z.infer<typeof versionAnswer>;
export type ClientConfigAnswer = z.infer<typeof clientConfigAnswer>;
export type BackendHealth = z.infer<typeof backendHealth>;
export type DatabaseFacts = z.infer<typeof databaseFacts>;

const boardPerson = {
  user_id: z.string(),
  minutes: z.number(),
  correct: z.number(),
  points: z.number().describe('minutes + correct'),
  handle: z.string().nullable(),
  display_name: z.string().nullable(),
  avatar_url: z.string().nullable(),
};

/** POST /__leaderboard: the top of the board and the caller's own rank. */
export const leaderboardAnswer = z.object({
  ok: z.literal(true),
  period: z.enum(['day', 'week', 'month', 'all']),
  since: z.string().nullable().describe("The period's first study day; null for all time."),
  entries: z.array(z.object({ ...boardPerson, rank: z.number(), is_me: z.boolean() })),
  me: z.object({ ...boardPerson, rank: z.number().nullable().describe('null: the caller has no points yet.') }),
  total_ranked: z.number(),
});

/** GET /api/update-capabilities. */
export const updateCapabilities = z.object({
  can_update: z.boolean().describe('This caller may check for and start updates (loopback, or an admin session).'),
  admin_available: z.boolean().describe('Admin mode is on, so an admin session from another computer is allowed.'),
});

/** GET /api/check-update: the checkout against its remote branch. */
export const updateCheck = z.object({
  ok: z.literal(true),
  remote: z.string(),
  branch: z.string(),
  local: z.object({ sha: z.string(), version: z.string() }),
  remote_head: z.object({ sha: z.string(), version: z.string().nullable() }),
  behind: z.number(),
  ahead: z.number(),
  update_available: z.boolean(),
  compared_by: z.enum(['build_stamp', 'sha']),
});

/** POST /api/update-now: the update runs detached; /api/version tells when the server is back. */
export const updateStarted = z.object({
  ok: z.literal(true),
  started: z.literal(true),
  stashing: z.boolean(),
  from_sha: z.string().nullable(),
  log: z.string(),
  poll: z.string(),
});

// The environment every studyhall entry point reads, defined once: `npm start` (gateway/src/config.ts),
// `npm run backend` (localbase/main.ts) and `npm run db:*` (db/cli.ts) each pick the
// variables they use from `envFields`, so a value means the same thing and is refused with the
// same sentence wherever it is read. An empty variable counts as unset, as in `DATABASE_URL= npm start`
// (except UPDATE_INSTALL_COMMAND and UPDATE_BUILD_COMMAND, where empty means "skip this step").
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defaultDataDir } from './paths.ts';
import { vapidPrivateKeySchema, vapidPublicKeySchema, vapidSubjectSchema } from './vapid-schemas.ts';

/** pino's levels, quietest last; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** PostgREST's db-tx-end values: how a Data API transaction ends, and whether `Prefer: tx=` may choose. */
export const TX_END_MODES = ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'] as const;

/** The embedded engines LOCALBASE_ENGINE chooses between. */
export const ENGINES = ['postgres', 'pglite'] as const;
export type EngineSetting = (typeof ENGINES)[number];

export const DEFAULT_PORT = 3000;
export const DEFAULT_LOCALBASE_PORT = 54321;
export const DEFAULT_HTTPS_PORT = 3443;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value.trim() : undefined));

const portNumber = z.coerce
  .number<string | undefined>({ message: 'must be a port number' })
  .int({ message: 'must be a whole number' })
  .min(0, { message: 'must be between 0 and 65535' })
  .max(65535, { message: 'must be between 0 and 65535' });
const port = (fallback: number) => optionalText.pipe(portNumber.default(fallback));

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const onOff = (fallback: 'on' | 'off') =>
  z
    .enum(['on', 'off', 'true', 'false', '1', '0'], { message: 'must be on or off' })
    .default(fallback)
    .transform((value) => value === 'on' || value === 'true' || value === '1');

const httpUrl = z
  .url({ message: 'must be an http(s) URL', protocol: /^https?$/ })
  .transform((value) => value.replace(/\/+$/, ''));

// node-postgres also reads socket paths and options from the URL (`postgres:///db?host=/run/postgresql`).
const postgresUrl = z.url({ message: 'must be a postgres:// or postgresql:// URL', protocol: /^postgres(ql)?$/ });

const emailList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.email({ message: 'must be a comma-separated list of e-mail addresses' })));

/** Every variable, with its rule and default. README.md's configuration table describes them. */
export const envFields = {
  PORT: port(DEFAULT_PORT),
  HOST: optionalText.pipe(z.string().default('0.0.0.0')),
  /** The app's address as students reach it; the start of the links in auth mail. Unset: http://HOST:PORT. */
  PUBLIC_URL: optionalText.pipe(httpUrl.optional()),
  /** Absolute; `.data/` in the checkout when unset. A relative value is taken from the working directory. */
  DATA_DIR: optionalText.transform((value) => (value ? path.resolve(value) : defaultDataDir({}))),
  DATABASE_URL: optionalText.pipe(postgresUrl.optional()),
  LOCALBASE_PORT: port(DEFAULT_LOCALBASE_PORT),
  /** Schemas localbase's Data API exposes, comma-separated, the first the default (Supabase's `[api] schemas`). */
  LOCALBASE_API_SCHEMAS: optionalText.pipe(
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((schema) => schema.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().min(1).max(63), { message: 'must be a comma-separated list of schema names' }).min(1))
      .optional(),
  ),
  /** The most rows one Data API answer carries (Supabase's `[api] max_rows`); unset means no limit. */
  LOCALBASE_API_MAX_ROWS: optionalText.pipe(
    z.coerce.number<string | undefined>({ message: 'must be a whole number' }).int().min(1).optional(),
  ),
  /** PostgREST's db-aggregates-enabled: aggregate functions in the Data API's `select`. */
  LOCALBASE_API_AGGREGATES: booleanFlag.default(false),
  /** PostgREST's db-plan-enabled: the Data API answers query plans (`Accept: application/vnd.pgrst.plan`). */
  LOCALBASE_API_PLANS: booleanFlag.default(false),
  /** PostgREST's db-tx-end: how a Data API request's transaction ends and whether `Prefer: tx=` may override it. */
  LOCALBASE_API_TX_END: optionalText.pipe(
    z.enum(TX_END_MODES, { message: `must be one of ${TX_END_MODES.join(', ')}` }).default('commit'),
  ),
  /** PostgREST's db-pre-request: a function (`name` or `schema.name`) called before each Data API request's statement. */
  LOCALBASE_API_PRE_REQUEST: optionalText.pipe(
    z
      .string()
      .regex(/^[^.]+(\.[^.]+)?$/, { message: 'must be a function name or schema.name' })
      .optional(),
  ),
  /** PostgREST's db-hoisted-tx-settings: which `SET` clauses of a called function apply to its request's transaction, comma-separated. */
  LOCALBASE_API_HOISTED_TX_SETTINGS: optionalText.pipe(
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      )
      .optional(),
  ),
  /** Where localbase's auth mail goes (`smtp://user:pass@host:587`, `smtps://...:465`); unset: its local outbox. */
  SMTP_URL: optionalText.pipe(
    z.url({ message: 'must be an smtp:// or smtps:// URL', protocol: /^smtps?$/ }).optional(),
  ),
  /** Whether localbase's signInAnonymously() creates users (GoTrue's EXTERNAL_ANONYMOUS_USERS_ENABLED); off by default. */
  LOCALBASE_ANONYMOUS_SIGN_INS: booleanFlag.default(false),
  /**
   * localbase's embedded database: `postgres` (PostgreSQL 15 from the npm package, run by the
   * server) or `pglite` (PostgreSQL in WebAssembly, one session: one student or a demo). Unset:
   * `postgres` where its binaries exist for this platform, else `pglite` (db/engine-choice.ts).
   */
  LOCALBASE_ENGINE: optionalText.pipe(z.enum(ENGINES, { message: `must be one of ${ENGINES.join(', ')}` }).optional()),
  BACKEND_URL: optionalText.pipe(httpUrl.optional()),
  BACKEND_ANON_KEY: optionalText,
  BACKEND_SERVICE_ROLE_KEY: optionalText,
  /** Unset means the XDG state folder; see `defaultLogDir`. */
  LOG_DIR: optionalText.transform((value) => (value ? path.resolve(value) : undefined)),
  LOG_LEVEL: optionalText.pipe(
    z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
  ENABLE_ADMIN_MODE: booleanFlag.default(false),
  ADMIN_SECRET: optionalText.pipe(
    z.string().min(16, { message: 'must be at least 16 characters (it signs the admin cookie)' }).optional(),
  ),
  ADMIN_EMAIL: emailList,
  ADMIN_EMAILS: emailList,
  /** The Management API the admin console's apply-sql talks to; unset: api.supabase.com, or localbase's own. */
  MANAGEMENT_API_URL: optionalText.pipe(httpUrl.optional()),
  BACKEND_PROJECT_REF: optionalText.pipe(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: 'must be a project ref (lower-case letters, digits and dashes)' })
      .optional(),
  ),
  OPENAI_API_KEY: optionalText,
  GEMINI_API_KEY: optionalText,
  UPDATE_REMOTE: z.string().min(1).default('origin'),
  UPDATE_BRANCH: optionalText,
  UPDATE_INSTALL_COMMAND: z.string().default('npm ci'),
  UPDATE_BUILD_COMMAND: z.string().default('npm run build --if-present'),
  UPDATE_RESTART: z.enum(['self', 'none'], { message: 'must be self or none' }).default('self'),
  /**
   * Where the gateway keeps what every server of a district must agree on (docs/deployment.md):
   * `local` (this process), `database` (localbase's database: DATABASE_URL), `backend` (a hosted
   * project's APIs). Unset: `database` with DATABASE_URL, else `local`.
   */
  SHARED_STATE: z.enum(['local', 'database', 'backend'], { message: 'must be local, database or backend' }).optional(),
  /** On unless turned off: an unpaired relay lets anyone on the network read and drive every timer. */
  PIP_PAIRING: optionalText.pipe(
    z
      .enum(['on', 'off', 'true', 'false', '1', '0'], { message: 'must be on or off' })
      .default('on')
      .transform((value) => value === 'on' || value === 'true' || value === '1'),
  ),
  /** The Web Push identity for a hosted backend (all three or none); localbase generates its own. */
  VAPID_PUBLIC_KEY: optionalText.pipe(vapidPublicKeySchema.optional()),
  VAPID_PRIVATE_KEY: optionalText.pipe(vapidPrivateKeySchema.optional()),
  VAPID_SUBJECT: optionalText.pipe(vapidSubjectSchema.optional()),
  /** Also push to plain-HTTP loopback endpoints: for test receivers only. */
  WEB_PUSH_ALLOW_HTTP: booleanFlag.default(false),
  /**
   * HTTPS for the local network (gateway/src/https/): `on` serves the app on HTTPS_PORT with a
   * certificate from a local certificate authority kept in DATA_DIR (or TLS_CERT_FILE), whenever the
   * gateway is reachable from the network; `off` serves plain HTTP only.
   */
  HTTPS: optionalText.pipe(onOff('on')),
  HTTPS_PORT: port(DEFAULT_HTTPS_PORT),
  /**
   * Which plain-HTTP page visits from another device move to HTTPS: `trusted` (those whose browser
   * has shown that it trusts the certificate), `always` (devices that have the CA installed by
   * their school), `off`. /__ca is never moved.
   */
  HTTPS_REDIRECT: optionalText.pipe(
    z.enum(['trusted', 'always', 'off'], { message: 'must be trusted, always or off' }).default('trusted'),
  ),
  /** A certificate of one's own (PEM, the chain after the server's certificate) and its key: no local CA then. */
  TLS_CERT_FILE: optionalText.transform((value) => (value ? path.resolve(value) : undefined)),
  TLS_KEY_FILE: optionalText.transform((value) => (value ? path.resolve(value) : undefined)),
  /** Announce MDNS_NAME.local on the local network (multicast DNS), so students can type a name. */
  MDNS: optionalText.pipe(onOff('on')),
  MDNS_NAME: optionalText.pipe(
    z
      .string()
      .toLowerCase()
      .transform((value) => value.replace(/\.local\.?$/, ''))
      .pipe(
        z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
          message: 'must be one DNS label (letters, digits and inner dashes), with or without .local',
        }),
      )
      .default('studyhall'),
  ),
} as const;

export type EnvName = keyof typeof envFields;
export type EnvValues<Names extends EnvName> = { [Name in Names]: z.output<(typeof envFields)[Name]> };
export type EnvResult<Names extends EnvName> =
  { ok: true; value: EnvValues<Names> } | { ok: false; problems: string[] };

/** Reads the named variables from `env`; a bad value is one `NAME: sentence` line in `problems`. */
export function readEnv<const Names extends EnvName>(
  env: NodeJS.ProcessEnv,
  names: readonly Names[],
): EnvResult<Names> {
  const shape = Object.fromEntries(names.map((name) => [name, envFields[name]])) as {
    [Name in Names]: (typeof envFields)[Name];
  };
  const parsed = z.object(shape).safeParse(env);
  if (parsed.success) return { ok: true, value: parsed.data as EnvValues<Names> };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
  };
}

/** LOG_DIR when unset: `$XDG_STATE_HOME/studyhall/logs`, else `~/.local/state/studyhall/logs`. */
export function defaultLogDir(env: NodeJS.ProcessEnv): string {
  const stateHome =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME.trim() !== ''
      ? env.XDG_STATE_HOME
      : path.join(env.HOME ?? os.homedir(), '.local', 'state');
  return path.resolve(stateHome, 'studyhall', 'logs');
}

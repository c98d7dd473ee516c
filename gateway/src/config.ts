// Every setting of the gateway, read from the environment once at boot and validated (the rules of
// each variable live in config/env.ts). A bad value stops the server with one line per problem.
import { defaultLogDir, readEnv, type EngineSetting, type LogLevel } from '#config/env.ts';
import { vapidPrivateKeySchema, vapidPublicKeySchema } from '#config/vapid-schemas.ts';
import { vapidKeysMatch, type VapidKeys } from './push/vapid-keys.ts';

/** The variables `npm start` reads (their rules live in config/env.ts). */
const GATEWAY_ENV = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'LOCALBASE_PORT',
  'SMTP_URL',
  'LOCALBASE_ENGINE',
  'BACKEND_URL',
  'BACKEND_ANON_KEY',
  'BACKEND_SERVICE_ROLE_KEY',
  'LOG_DIR',
  'LOG_LEVEL',
  'ENABLE_ADMIN_MODE',
  'ADMIN_SECRET',
  'ADMIN_EMAIL',
  'ADMIN_EMAILS',
  'MANAGEMENT_API_URL',
  'BACKEND_PROJECT_REF',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'UPDATE_REMOTE',
  'UPDATE_BRANCH',
  'UPDATE_INSTALL_COMMAND',
  'UPDATE_BUILD_COMMAND',
  'UPDATE_RESTART',
  'PIP_PAIRING',
  'SHARED_STATE',
  'VAPID_PUBLIC_KEY',
  'VAPID_PRIVATE_KEY',
  'VAPID_SUBJECT',
  'WEB_PUSH_ALLOW_HTTP',
  'HTTPS',
  'HTTPS_PORT',
  'HTTPS_REDIRECT',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'MDNS',
  'MDNS_NAME',
] as const;

/** HTTPS for the local network (gateway/src/https/). */
export interface HttpsSettings {
  /** HTTPS=on: served whenever the gateway is reachable from the network (or HTTPS_PORT is set). */
  enabled: boolean;
  port: number;
  /** HTTPS_PORT was set: HTTPS is served even when HOST is a loopback address. */
  portChosen: boolean;
  /** Which plain-HTTP page visits from other devices move to HTTPS (https-redirect.ts). */
  redirect: 'trusted' | 'always' | 'off';
  /** TLS_CERT_FILE / TLS_KEY_FILE: a certificate of one's own instead of the local CA. */
  certFile?: string;
  keyFile?: string;
}

/** The multicast DNS announcer (gateway/src/lan/). */
export interface MdnsSettings {
  enabled: boolean;
  /** The full name it answers for, `<MDNS_NAME>.local`. */
  hostName: string;
}

export interface UpdateSettings {
  remote: string;
  /** The branch to follow; undefined means the branch currently checked out. */
  branch: string | undefined;
  /** Shell commands run after `git pull --ff-only`; an empty string skips the step. */
  installCommand: string;
  buildCommand: string;
  /** `self`: the updater stops this process and starts `npm start` again; `none`: leave it running. */
  restart: 'self' | 'none';
}

export interface GatewayConfig {
  port: number;
  host: string;
  /** PUBLIC_URL: where students reach the app, when not http://HOST:PORT (auth mail links start here). */
  publicUrl?: string;
  dataDir: string;
  databaseUrl: string | undefined;
  localbasePort: number;
  /** localbase's auth mail server; unset: mail is kept in localbase's outbox. */
  smtpUrl?: string;
  /** LOCALBASE_ENGINE: localbase's embedded engine; unset: PostgreSQL where it can run. */
  engine?: EngineSetting;
  /** Set when fronting a hosted backend; unset means localbase runs in this process. */
  backend: { url: string; anonKey: string; serviceRoleKey: string | undefined } | undefined;
  logDir: string;
  /** The level of LOG_DIR/server.log; the terminal shows warnings and errors unless this is debug or trace. */
  logLevel: LogLevel;
  admin: {
    enabled: boolean;
    secret: string | undefined;
    emails: string[];
    /** The Management API apply-sql talks to; unset: api.supabase.com, or localbase's own URL. */
    managementApiUrl?: string | undefined;
    /** The project apply-sql targets; unset: the subdomain of a *.supabase.co BACKEND_URL, or `local`. */
    projectRef?: string | undefined;
  };
  ai: { openai: boolean; gemini: boolean };
  update: UpdateSettings;
  /**
   * Where what every server of a district must agree on is kept (docs/deployment.md): this process
   * (`local`, also when unset), localbase's database (`database`) or the hosted project (`backend`).
   */
  sharedState?: 'local' | 'database' | 'backend';
  /** On unless PIP_PAIRING=off: phones need the focus page's pairing code, and each page has its own channel. */
  pipPairing: boolean;
  /** The Web Push identity from VAPID_*; unset means keys generated in dataDir (localbase) or no push. */
  vapid?: VapidKeys;
  /** WEB_PUSH_ALLOW_HTTP: also push to plain-HTTP loopback endpoints (test receivers only). */
  pushAllowPlainHttp?: boolean;
  /** Unset: plain HTTP only (tests build gateways without it). */
  https?: HttpsSettings;
  /** Unset: no mDNS announcement. */
  mdns?: MdnsSettings;
}

export type ConfigResult = { ok: true; config: GatewayConfig } | { ok: false; problems: string[] };

/** Rules between settings, checked on the raw values so they are reported beside any bad value. */
function crossSettingProblems(env: NodeJS.ProcessEnv): string[] {
  const isSet = (name: string) => Boolean(env[name]?.trim());
  const problems: string[] = [];
  if (isSet('BACKEND_URL') && !isSet('BACKEND_ANON_KEY'))
    problems.push('BACKEND_ANON_KEY: is required when BACKEND_URL is set');
  if (!isSet('BACKEND_URL') && (isSet('BACKEND_ANON_KEY') || isSet('BACKEND_SERVICE_ROLE_KEY'))) {
    problems.push('BACKEND_URL: is required when backend keys are set');
  }
  const vapidNames = ['VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'VAPID_SUBJECT'];
  const missingVapid = vapidNames.filter((name) => !isSet(name));
  if (missingVapid.length > 0 && missingVapid.length < vapidNames.length) {
    problems.push(`${missingVapid.join(', ')}: set all three VAPID variables or none`);
  } else if (missingVapid.length === 0) {
    const publicKey = vapidPublicKeySchema.safeParse(env.VAPID_PUBLIC_KEY?.trim());
    const privateKey = vapidPrivateKeySchema.safeParse(env.VAPID_PRIVATE_KEY?.trim());
    // A malformed key is already reported by the schema; only a well-formed pair can mismatch.
    if (publicKey.success && privateKey.success && !vapidKeysMatch(publicKey.data, privateKey.data)) {
      problems.push('VAPID_PRIVATE_KEY: is not the private key of VAPID_PUBLIC_KEY');
    }
  }
  if (isSet('TLS_CERT_FILE') !== isSet('TLS_KEY_FILE'))
    problems.push(`${isSet('TLS_CERT_FILE') ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'}: set both TLS files or neither`);
  if (env.SHARED_STATE?.trim() === 'database' && isSet('BACKEND_URL'))
    problems.push('SHARED_STATE: database needs localbase in this process (unset BACKEND_URL, or use backend)');
  if (env.SHARED_STATE?.trim() === 'backend' && !(isSet('BACKEND_URL') && isSet('BACKEND_SERVICE_ROLE_KEY')))
    problems.push('SHARED_STATE: backend needs BACKEND_URL and BACKEND_SERVICE_ROLE_KEY');
  const portOf = (name: string, fallback: string) => (isSet(name) ? env[name]?.trim() : fallback);
  if (portOf('HTTPS_PORT', '3443') === portOf('PORT', '3000') && portOf('PORT', '3000') !== '0')
    problems.push('HTTPS_PORT: must differ from PORT');
  return problems;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConfigResult {
  const parsed = readEnv(env, GATEWAY_ENV);
  const problems = [...(parsed.ok ? [] : parsed.problems), ...crossSettingProblems(env)];
  if (!parsed.ok || problems.length > 0) return { ok: false, problems };
  const value = parsed.value;
  return {
    ok: true,
    config: {
      port: value.PORT,
      host: value.HOST,
      ...(value.PUBLIC_URL ? { publicUrl: value.PUBLIC_URL } : {}),
      dataDir: value.DATA_DIR,
      databaseUrl: value.DATABASE_URL,
      localbasePort: value.LOCALBASE_PORT,
      ...(value.SMTP_URL ? { smtpUrl: value.SMTP_URL } : {}),
      ...(value.LOCALBASE_ENGINE ? { engine: value.LOCALBASE_ENGINE } : {}),
      backend: value.BACKEND_URL
        ? {
            url: value.BACKEND_URL,
            anonKey: value.BACKEND_ANON_KEY ?? '',
            serviceRoleKey: value.BACKEND_SERVICE_ROLE_KEY,
          }
        : undefined,
      logDir: value.LOG_DIR ?? defaultLogDir(env),
      logLevel: value.LOG_LEVEL,
      admin: {
        enabled: value.ENABLE_ADMIN_MODE,
        secret: value.ADMIN_SECRET,
        emails: [...new Set([...value.ADMIN_EMAIL, ...value.ADMIN_EMAILS])],
        managementApiUrl: value.MANAGEMENT_API_URL,
        projectRef: value.BACKEND_PROJECT_REF,
      },
      ai: { openai: Boolean(value.OPENAI_API_KEY), gemini: Boolean(value.GEMINI_API_KEY) },
      update: {
        remote: value.UPDATE_REMOTE,
        branch: value.UPDATE_BRANCH,
        installCommand: value.UPDATE_INSTALL_COMMAND.trim(),
        buildCommand: value.UPDATE_BUILD_COMMAND.trim(),
        restart: value.UPDATE_RESTART,
      },
      pipPairing: value.PIP_PAIRING,
      sharedState: value.SHARED_STATE ?? (value.DATABASE_URL && !value.BACKEND_URL ? 'database' : 'local'),
      ...(value.VAPID_PUBLIC_KEY && value.VAPID_PRIVATE_KEY && value.VAPID_SUBJECT
        ? {
            vapid: {
              publicKey: value.VAPID_PUBLIC_KEY,
              privateKey: value.VAPID_PRIVATE_KEY,
              subject: value.VAPID_SUBJECT,
            },
          }
        : {}),
      pushAllowPlainHttp: value.WEB_PUSH_ALLOW_HTTP,
      https: {
        enabled: value.HTTPS,
        port: value.HTTPS_PORT,
        portChosen: Boolean(env.HTTPS_PORT?.trim()),
        redirect: value.HTTPS_REDIRECT,
        ...(value.TLS_CERT_FILE && value.TLS_KEY_FILE
          ? { certFile: value.TLS_CERT_FILE, keyFile: value.TLS_KEY_FILE }
          : {}),
      },
      mdns: { enabled: value.MDNS, hostName: `${value.MDNS_NAME}.local` },
    },
  };
}

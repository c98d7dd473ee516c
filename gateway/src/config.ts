// Every setting of the gateway, read from the environment once at boot and validated with zod.
// A bad value stops the server with one line per problem (see formatConfigProblems and main.ts).
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defaultDataDir } from '../../tools/db/paths.ts';
import { vapidKeysMatch, vapidPrivateKeySchema, vapidPublicKeySchema, vapidSubjectSchema, type VapidKeys } from './push/vapid-keys.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce
  .number({ message: 'must be a port number' })
  .int({ message: 'must be a whole number' })
  .min(0, { message: 'must be between 0 and 65535' })
  .max(65535, { message: 'must be between 0 and 65535' });

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value.trim() : undefined));

const httpUrl = z
  .url({ message: 'must be an http(s) URL', protocol: /^https?$/ })
  .transform((value) => value.replace(/\/+$/, ''));

const emailList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim().toLowerCase()).filter(Boolean))
  .pipe(z.array(z.email({ message: 'must be a comma-separated list of e-mail addresses' })));

const envSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1, { message: 'must not be empty' }).default('0.0.0.0'),
    DATA_DIR: optionalText,
    DATABASE_URL: optionalText,
    LOCALBASE_PORT: port.default(54321),
    BACKEND_URL: optionalText.pipe(httpUrl.optional()),
    BACKEND_ANON_KEY: optionalText,
    BACKEND_SERVICE_ROLE_KEY: optionalText,
    LOG_DIR: optionalText,
    ENABLE_ADMIN_MODE: booleanFlag.default(false),
    ADMIN_SECRET: optionalText.pipe(
      z.string().min(16, { message: 'must be at least 16 characters (it signs the admin cookie)' }).optional(),
    ),
    ADMIN_EMAIL: emailList,
    ADMIN_EMAILS: emailList,
    OPENAI_API_KEY: optionalText,
    GEMINI_API_KEY: optionalText,
    UPDATE_REMOTE: z.string().min(1).default('origin'),
    UPDATE_BRANCH: optionalText,
    UPDATE_INSTALL_COMMAND: z.string().default('npm ci'),
    UPDATE_BUILD_COMMAND: z.string().default('npm run build --if-present'),
    UPDATE_RESTART: z.enum(['self', 'none'], { message: 'must be self or none' }).default('self'),
    VAPID_PUBLIC_KEY: optionalText.pipe(vapidPublicKeySchema.optional()),
    VAPID_PRIVATE_KEY: optionalText.pipe(vapidPrivateKeySchema.optional()),
    VAPID_SUBJECT: optionalText.pipe(vapidSubjectSchema.optional()),
    WEB_PUSH_ALLOW_HTTP: booleanFlag.default(false),
  });

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
  dataDir: string;
  databaseUrl: string | undefined;
  localbasePort: number;
  /** Set when fronting a hosted backend; unset means localbase runs in this process. */
  backend: { url: string; anonKey: string; serviceRoleKey: string | undefined } | undefined;
  logDir: string;
  admin: { enabled: boolean; secret: string | undefined; emails: string[] };
  ai: { openai: boolean; gemini: boolean };
  update: UpdateSettings;
  /** The Web Push identity from VAPID_*; unset means keys generated in dataDir (localbase) or no push. */
  vapid?: VapidKeys;
  /** WEB_PUSH_ALLOW_HTTP: also push to plain-HTTP loopback endpoints (test receivers only). */
  pushAllowPlainHttp?: boolean;
}

export type ConfigResult = { ok: true; config: GatewayConfig } | { ok: false; problems: string[] };

function defaultLogDir(env: NodeJS.ProcessEnv): string {
  const stateHome = env.XDG_STATE_HOME && env.XDG_STATE_HOME.trim() !== '' ? env.XDG_STATE_HOME : path.join(env.HOME ?? os.homedir(), '.local', 'state');
  return path.join(stateHome, 'studyhall', 'logs');
}

/** Rules between settings, checked on the raw values so they are reported beside any bad value. */
function crossSettingProblems(env: NodeJS.ProcessEnv): string[] {
  const isSet = (name: string) => Boolean(env[name]?.trim());
  const problems: string[] = [];
  if (isSet('BACKEND_URL') && !isSet('BACKEND_ANON_KEY')) problems.push('BACKEND_ANON_KEY: is required when BACKEND_URL is set');
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
  return problems;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConfigResult {
  const parsed = envSchema.safeParse(env);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`)),
    ...crossSettingProblems(env),
  ];
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  const value = parsed.data;
  return {
    ok: true,
    config: {
      port: value.PORT,
      host: value.HOST,
      dataDir: value.DATA_DIR ? path.resolve(value.DATA_DIR) : defaultDataDir({}),
      databaseUrl: value.DATABASE_URL,
      localbasePort: value.LOCALBASE_PORT,
      backend: value.BACKEND_URL
        ? { url: value.BACKEND_URL, anonKey: value.BACKEND_ANON_KEY ?? '', serviceRoleKey: value.BACKEND_SERVICE_ROLE_KEY }
        : undefined,
      logDir: path.resolve(value.LOG_DIR ?? defaultLogDir(env)),
      admin: {
        enabled: value.ENABLE_ADMIN_MODE,
        secret: value.ADMIN_SECRET,
        emails: [...new Set([...value.ADMIN_EMAIL, ...value.ADMIN_EMAILS])],
      },
      ai: { openai: Boolean(value.OPENAI_API_KEY), gemini: Boolean(value.GEMINI_API_KEY) },
      update: {
        remote: value.UPDATE_REMOTE,
        branch: value.UPDATE_BRANCH,
        installCommand: value.UPDATE_INSTALL_COMMAND.trim(),
        buildCommand: value.UPDATE_BUILD_COMMAND.trim(),
        restart: value.UPDATE_RESTART,
      },
      ...(value.VAPID_PUBLIC_KEY && value.VAPID_PRIVATE_KEY && value.VAPID_SUBJECT
        ? { vapid: { publicKey: value.VAPID_PUBLIC_KEY, privateKey: value.VAPID_PRIVATE_KEY, subject: value.VAPID_SUBJECT } }
        : {}),
      pushAllowPlainHttp: value.WEB_PUSH_ALLOW_HTTP,
    },
  };
}

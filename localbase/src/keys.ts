// The secrets of one DATA_DIR: the JWT secret, the anon and service_role keys signed with it, the
// ES256 key pair that signs sessions, and the management access token. Generated at first boot,
// stored with mode 0600, reused afterwards, so keys printed once keep working across restarts (and
// are never the public demo keys). A keys.json from before the signing key is given one, once.
//
// Servers that share one PostgreSQL (DATABASE_URL: a district, docs/deployment.md) must share these
// too: a session signed by one server is verified by all, and the anon key the web app was given
// works on every server. Their keys live in the database then (shareProjectKeys): the first server
// stores the ones it has, every server afterwards takes the stored ones and writes them to its
// keys.json, so none keeps keys of its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type pg from 'pg';
import { z } from 'zod';
import { writePrivateFile } from '#db/private-file.ts';
import { signJwt, type SigningKeyPair } from './jwt.ts';

export interface ProjectKeys {
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  accessToken: string;
  signingKey: SigningKeyPair;
}

const ecJwk = (withPrivate: boolean) =>
  z
    .object({
      kty: z.literal('EC'),
      crv: z.literal('P-256'),
      x: z.string().min(1),
      y: z.string().min(1),
      ...(withPrivate ? { d: z.string().min(1) } : {}),
    })
    .transform((jwk) => jwk as JWK);

const keysFileSchema = z.object({
  jwtSecret: z.string().min(32),
  anonKey: z.string().min(1),
  serviceRoleKey: z.string().min(1),
  accessToken: z.string().startsWith('sbp_'),
  signingKey: z.object({ kid: z.uuid(), privateJwk: ecJwk(true), publicJwk: ecJwk(false) }).optional(),
});

/** A fresh ES256 key pair; its `kid` is a UUID, as hosted projects name their keys. */
export async function generateSigningKey(): Promise<SigningKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const [privateJwk, publicJwk] = await Promise.all([exportJWK(privateKey), exportJWK(publicKey)]);
  return { kid: randomUUID(), privateJwk, publicJwk };
}

/** API keys live ten years, like the CLI's: they identify the project, the user token the person. */
const API_KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;
export const KEY_ISSUER = 'localbase';

export function keysFile(dataDir: string): string {
  return path.join(dataDir, 'keys.json');
}

async function generateKeys(): Promise<ProjectKeys> {
  const jwtSecret = randomBytes(48).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const apiKey = (role: string) =>
    signJwt({ iss: KEY_ISSUER, role, iat: now, exp: now + API_KEY_LIFETIME_SECONDS }, jwtSecret);
  return {
    jwtSecret,
    anonKey: await apiKey('anon'),
    serviceRoleKey: await apiKey('service_role'),
    accessToken: `sbp_${randomBytes(20).toString('hex')}`,
    signingKey: await generateSigningKey(),
  };
}

async function writeKeys(dataDir: string, keys: ProjectKeys): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writePrivateFile(keysFile(dataDir), `${JSON.stringify(keys, null, 2)}\n`);
}

/** Reads DATA_DIR/keys.json, or creates it (atomically, 0600) when it does not exist yet. */
export async function loadOrCreateKeys(dataDir: string): Promise<ProjectKeys> {
  const file = keysFile(dataDir);
  let stored: z.infer<typeof keysFileSchema> | undefined;
  try {
    stored = keysFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`${file} is unreadable or invalid; move it away to generate new keys`, { cause: error });
    }
  }
  if (stored?.signingKey) return { ...stored, signingKey: stored.signingKey };
  // Older keys.json: everything it has is kept (keys already handed out keep working).
  const keys = stored ? { ...stored, signingKey: await generateSigningKey() } : await generateKeys();
  await writeKeys(dataDir, keys);
  return keys;
}

/**
 * The keys of every server on this database: the stored ones, or, when none are stored yet, these
 * (then stored). DATA_DIR/keys.json is rewritten when it held others. The table is localbase's own
 * (schema `_localbase`), readable by no API role; a lock makes two servers starting at once agree.
 */
export async function shareProjectKeys(pool: pg.Pool, dataDir: string, keys: ProjectKeys): Promise<ProjectKeys> {
  const client = await pool.connect();
  let stored: unknown;
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('localbase:project_keys'))`);
    await client.query(`create table if not exists _localbase.project_keys (
      singleton boolean primary key default true check (singleton),
      keys jsonb not null,
      created_at timestamptz not null default now())`);
    await client.query('revoke all on _localbase.project_keys from public');
    await client.query('insert into _localbase.project_keys (keys) values ($1) on conflict (singleton) do nothing', [
      JSON.stringify(keys),
    ]);
    const { rows } = await client.query<{ keys: unknown }>('select keys from _localbase.project_keys');
    stored = rows[0]?.keys;
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  const parsed = keysFileSchema.required({ signingKey: true }).parse(stored);
  const shared: ProjectKeys = { ...parsed, signingKey: parsed.signingKey };
  const same =
    shared.jwtSecret === keys.jwtSecret &&
    shared.accessToken === keys.accessToken &&
    shared.signingKey.kid === keys.signingKey.kid;
  if (!same) await writeKeys(dataDir, shared);
  return shared;
}

// The secrets of one DATA_DIR: the JWT secret, the anon and service_role keys signed with it, the
// ES256 key pair that signs sessions, and the management access token. Generated at first boot,
// stored with mode 0600, reused afterwards, so keys printed once keep working across restarts (and
// are never the public demo keys). A keys.json from before the signing key is given one, once.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
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

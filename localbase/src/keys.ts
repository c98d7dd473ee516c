// The secrets of one DATA_DIR: the JWT secret, the anon and service_role keys signed with it and the
// management access token. Generated at first boot, stored with mode 0600, reused afterwards, so
// keys printed once keep working across restarts (and are never the public demo keys).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writePrivateFile } from '#db/private-file.ts';
import { signJwt } from './jwt.ts';

export interface ProjectKeys {
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  accessToken: string;
}

const keysFileSchema = z.object({
  jwtSecret: z.string().min(32),
  anonKey: z.string().min(1),
  serviceRoleKey: z.string().min(1),
  accessToken: z.string().startsWith('sbp_'),
});

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
  };
}

/** Reads DATA_DIR/keys.json, or creates it (atomically, 0600) when it does not exist yet. */
export async function loadOrCreateKeys(dataDir: string): Promise<ProjectKeys> {
  const file = keysFile(dataDir);
  try {
    return keysFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`${file} is unreadable or invalid; move it away to generate new keys`, { cause: error });
    }
  }
  const keys = await generateKeys();
  await mkdir(dataDir, { recursive: true });
  await writePrivateFile(file, `${JSON.stringify(keys, null, 2)}\n`);
  return keys;
}

// VAPID keys identify this server to push services: the browser subscribes with the public key and
// every push is signed with the private one. With localbase they are generated once per DATA_DIR
// and kept there (0600); a hosted backend, where several gateways may share the subscriptions,
// names one pair in VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY / VAPID_SUBJECT.
import { createECDH } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import webpush from 'web-push';
import { z } from 'zod';
import { vapidPrivateKeySchema, vapidPublicKeySchema } from '#config/vapid-schemas.ts';
import { writePrivateFile } from '#db/private-file.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** Contact for the push service operators: a mailto: or https: URL. */
  subject: string;
}

const storedKeysSchema = z.object({ publicKey: vapidPublicKeySchema, privateKey: vapidPrivateKeySchema });

export function vapidKeysFile(dataDir: string): string {
  return path.join(dataDir, 'vapid-keys.json');
}

/**
 * The subject for generated keys: the first admin e-mail when one is configured (a real contact,
 * which Apple's push service insists on), otherwise an address on a resolvable documentation domain.
 */
export function defaultVapidSubject(adminEmails: string[]): string {
  return adminEmails[0] ? `mailto:${adminEmails[0]}` : 'mailto:studyhall@example.com';
}

/** Reads DATA_DIR/vapid-keys.json, or generates the pair and writes it (atomically, 0600). */
export async function loadOrCreateVapidKeys(dataDir: string, subject: string): Promise<VapidKeys> {
  const file = vapidKeysFile(dataDir);
  try {
    return { ...storedKeysSchema.parse(JSON.parse(await readFile(file, 'utf8'))), subject };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      // Replacing the keys would silently break every subscription made with them, so never guess.
      throw new Error(
        `${file} is unreadable or invalid; fix it, or move it away to generate new keys (browsers then subscribe again)`,
        { cause: error },
      );
    }
  }
  const generated = webpush.generateVAPIDKeys();
  const keys = storedKeysSchema.parse({ publicKey: generated.publicKey, privateKey: generated.privateKey });
  await mkdir(dataDir, { recursive: true });
  await writePrivateFile(file, `${JSON.stringify(keys, null, 2)}\n`);
  return { ...keys, subject };
}

/** Whether the private key is the one behind the public key (a mismatch fails every push with 403). */
export function vapidKeysMatch(publicKey: string, privateKey: string): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
    return ecdh.getPublicKey().equals(Buffer.from(publicKey, 'base64url'));
  } catch {
    return false;
  }
}

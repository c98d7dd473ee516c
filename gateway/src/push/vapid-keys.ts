// VAPID keys identify this server to push services: the browser subscribes with the public key and
// every push is signed with the private one. With localbase they are generated once per DATA_DIR
// and kept there (0600); a hosted backend, where several gateways may share the subscriptions,
// names one pair in VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY / VAPID_SUBJECT.
import { createECDH } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import webpush from 'web-push';
import { z } from 'zod';
import { writePrivateFile } from '../../../tools/localbase/src/keys.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** Contact for the push service operators: a mailto: or https: URL. */
  subject: string;
}

const base64UrlOfLength = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, { message: `must be URL-safe base64 without padding (${what})`, abort: true })
    .refine((value) => Buffer.from(value, 'base64url').length === bytes, { message: `must decode to ${bytes} bytes (${what})`, abort: true });

/** An uncompressed P-256 point, as browsers take it for applicationServerKey. */
export const vapidPublicKeySchema = base64UrlOfLength(65, 'an uncompressed P-256 public key').refine(
  (value) => Buffer.from(value, 'base64url')[0] === 0x04,
  { message: 'must be an uncompressed P-256 point (first byte 0x04)' },
);
export const vapidPrivateKeySchema = base64UrlOfLength(32, 'a P-256 private key');

/** The host a subject names: the domain of a mailto: address or the host of an https: URL. */
function subjectHost(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol === 'https:') return url.hostname.toLowerCase();
  if (url.protocol !== 'mailto:') return undefined;
  const match = /^[^@\s]+@([^@\s]+)$/.exec(url.pathname);
  return match?.[1]?.toLowerCase();
}

// Apple's push service refuses subjects whose host it cannot resolve (localhost, .invalid), so
// those are refused here rather than failing every push to an iPhone later.
export const vapidSubjectSchema = z
  .string()
  .refine((value) => subjectHost(value) !== undefined, { message: 'must be a mailto: address or an https: URL' })
  .refine(
    (value) => {
      const host = subjectHost(value) ?? '';
      return host.includes('.') && !/(^|\.)(localhost|invalid|local)$/.test(host);
    },
    { message: 'must name a public domain push services can resolve (not localhost, .local or .invalid)' },
  );

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
      throw new Error(`${file} is unreadable or invalid; fix it, or move it away to generate new keys (browsers then subscribe again)`, { cause: error });
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

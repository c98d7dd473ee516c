// The shapes of a Web Push (VAPID) identity, checked where the environment is read
// (config/env.ts) and where keys are stored (gateway/src/push/vapid-keys.ts).
import { z } from 'zod';

const base64UrlOfLength = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, { message: `must be URL-safe base64 without padding (${what})`, abort: true })
    .refine((value) => Buffer.from(value, 'base64url').length === bytes, {
      message: `must decode to ${bytes} bytes (${what})`,
      abort: true,
    });

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

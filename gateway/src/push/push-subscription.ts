// A Web Push device token is the browser's PushSubscription as JSON text
// ({"endpoint", "expirationTime", "keys": {"p256dh", "auth"}}), stored as registered. Anything else
// in community_device_tokens (a token from another kind of client, or garbage) is not sendable.
import { z } from 'zod';

const base64Url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, { message: 'must be URL-safe base64' });

const subscriptionSchema = z.object({
  endpoint: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // The browser's ECDH public key (an uncompressed P-256 point) and its 16-byte auth secret.
    p256dh: base64Url.refine((value) => Buffer.from(value, 'base64url').length === 65, { message: 'must be 65 bytes' }),
    auth: base64Url.refine((value) => Buffer.from(value, 'base64url').length === 16, { message: 'must be 16 bytes' }),
  }),
});

export type PushSubscriptionJson = z.infer<typeof subscriptionSchema>;

export type ParsedToken = { ok: true; subscription: PushSubscriptionJson } | { ok: false; reason: string };

const LOOPBACK_HOSTS = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * Parses a device token into a subscription the sender may use. Browsers only ever hand out https
 * endpoints; a plain-HTTP one is a student's own text and would let them aim the gateway at
 * services on its network (on loopback: /api/update-now). So plain HTTP is refused, and even when
 * allowed for a loopback test receiver, only loopback hosts are accepted.
 */
export function parsePushToken(token: string, options: { allowPlainHttp: boolean }): ParsedToken {
  let json: unknown;
  try {
    json = JSON.parse(token);
  } catch {
    return { ok: false, reason: 'the token is not JSON (not a Web Push subscription)' };
  }
  const parsed = subscriptionSchema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'token'}: ${issue.message}`).join('; '),
    };
  }
  const endpoint = new URL(parsed.data.endpoint);
  if (endpoint.protocol !== 'https:' && !(options.allowPlainHttp && LOOPBACK_HOSTS.test(endpoint.hostname))) {
    return { ok: false, reason: 'endpoint: must be an https URL' };
  }
  return { ok: true, subscription: parsed.data };
}

// The admin cookie of DESIGN.md: `app_admin`, Path=/, HMAC-SHA256 signed, carrying the subject and
// the issue time, valid 12 hours. The admin console (a later issue) issues it at /__admin/login;
// the gateway already honours it where the spec says (the backend proxy and /api/update-now).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

export const ADMIN_COOKIE = 'app_admin';
export const ADMIN_COOKIE_MAX_AGE_S = 12 * 60 * 60;

export interface AdminGate {
  /** Admin mode is ready: enabled, a service-role key, and a signing key (spec "Admin mode" 1). */
  ready: boolean;
  signingKey: Buffer;
}

/** ADMIN_SECRET signs the cookie; without it a random key per boot (sessions end on restart). */
export function createAdminGate(options: { enabled: boolean; secret: string | undefined; serviceRoleKey: string | undefined }): AdminGate {
  const signingKey = options.secret ? Buffer.from(options.secret, 'utf8') : randomBytes(32);
  return { ready: options.enabled && Boolean(options.serviceRoleKey), signingKey };
}

const cookiePayload = z.object({ sub: z.string().min(1), iat: z.number().int() });

function sign(key: Buffer, encodedPayload: string): string {
  return createHmac('sha256', key).update(encodedPayload).digest('base64url');
}

export function signAdminCookie(key: Buffer, subject: string, issuedAtS = Math.floor(Date.now() / 1000)): string {
  const encoded = Buffer.from(JSON.stringify({ sub: subject, iat: issuedAtS })).toString('base64url');
  return `${encoded}.${sign(key, encoded)}`;
}

/** The subject of a valid, unexpired cookie value; undefined for anything else. */
export function verifyAdminCookie(key: Buffer, value: string | undefined, nowS = Math.floor(Date.now() / 1000)): string | undefined {
  if (!value) return undefined;
  const [encoded, signature, extra] = value.split('.');
  if (!encoded || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(key, encoded));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const payload = cookiePayload.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
    if (payload.iat > nowS + 60 || nowS - payload.iat > ADMIN_COOKIE_MAX_AGE_S) return undefined;
    return payload.sub;
  } catch {
    return undefined;
  }
}

/** Whether a raw Cookie header carries an admin cookie at all, valid or not (for the same-origin guard). */
export function carriesAdminCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((part) => part.trim().split('=')[0] === ADMIN_COOKIE);
}

/** Reads the admin cookie from a raw Cookie header; valid only while admin mode is ready. */
export function adminSubjectFromCookieHeader(gate: AdminGate, cookieHeader: string | undefined): string | undefined {
  if (!gate.ready || !cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === ADMIN_COOKIE) return verifyAdminCookie(gate.signingKey, decodeURIComponent(rest.join('=')));
  }
  return undefined;
}

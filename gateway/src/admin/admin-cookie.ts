// The admin cookie: `app_admin`, Path=/ (so /api/update-now and the backend proxy can honour it
// too), HttpOnly, SameSite=Strict, Max-Age 12 hours, Secure on https. Its value carries the
// subject and the issue time and is signed with @fastify/cookie's signer (HMAC-SHA256) under
// ADMIN_SECRET, or under 32 random bytes drawn at boot when no secret is set, so a cookie from a
// previous boot never verifies. The issue time is checked as well as Max-Age: a browser that
// keeps the cookie longer, or a copied value, is refused after 12 hours. Logging out ends the
// session on the server at once (ended-sessions.ts; in a district, on every server:
// shared-ended-sessions.ts): the same value is refused everywhere after it. So reading a cookie
// asks the store of ended sessions each time, and is asynchronous.
import { randomBytes } from 'node:crypto';
import { Signer } from '@fastify/cookie';
import { z } from 'zod';
import { EndedAdminSessions, type EndedSessionStore } from './ended-sessions.ts';

export const ADMIN_COOKIE = 'app_admin';
export const ADMIN_COOKIE_MAX_AGE_S = 12 * 60 * 60;
/** A cookie issued "in the future" by more than this is refused (clock steps, forged values). */
const CLOCK_SKEW_S = 60;

export interface AdminGate {
  /** Admin mode is ready: enabled, a service-role key, and a signing key. */
  ready: boolean;
  /** Why it is not ready, for the 403 message; empty when ready. */
  notReadyReasons: string[];
  /** Signs and verifies the cookie (the key: ADMIN_SECRET, or random bytes for this boot). */
  signer: Signer;
  /** Whether the key came from ADMIN_SECRET (cookies survive a restart) or was drawn at boot. */
  keySource: 'admin_secret' | 'boot';
  /** Sessions logged out before their cookie expired. */
  ended: EndedSessionStore;
}

/**
 * endedSessionsFile: where logged-out sessions are remembered across restarts; used only with
 * ADMIN_SECRET (without it a restart ends every session anyway). ended: a store the servers of a
 * district share instead (then no file is used).
 */
export function createAdminGate(options: {
  enabled: boolean;
  secret: string | undefined;
  serviceRoleKey: string | undefined;
  endedSessionsFile?: string | undefined;
  ended?: EndedSessionStore | undefined;
}): AdminGate {
  const key = options.secret ? Buffer.from(options.secret, 'utf8') : randomBytes(32);
  const notReadyReasons = [
    ...(options.enabled ? [] : ['ENABLE_ADMIN_MODE is not true']),
    ...(options.serviceRoleKey ? [] : ['no service-role key is known (set BACKEND_SERVICE_ROLE_KEY)']),
  ];
  return {
    ready: notReadyReasons.length === 0,
    notReadyReasons,
    signer: new Signer(key, 'sha256'),
    keySource: options.secret ? 'admin_secret' : 'boot',
    ended: options.ended ?? new EndedAdminSessions(options.secret ? options.endedSessionsFile : undefined),
  };
}

// n: random bytes per login, so two logins of one subject in the same second are two sessions
// (logging one out leaves the other).
const cookiePayload = z.object({
  sub: z.string().min(1).max(400),
  iat: z.number().int(),
  n: z.string().max(64).optional(),
});

/** The subject of a console session opened with a backend account. */
export function accountSubject(userId: string, email: string): string {
  return `user:${userId}:${email}`;
}

/** The user id of an account subject (`user:<id>:<email>`), undefined for the secret. */
export function subjectUserId(subject: string): string | undefined {
  return /^user:([0-9a-f-]{36}):/.exec(subject)?.[1];
}

export interface AdminSession {
  subject: string;
  issuedAtS: number;
  expiresAtS: number;
}

/** The unsigned cookie value: base64url JSON of {sub, iat, n}. @fastify/cookie appends the signature. */
export function adminCookiePayload(subject: string, issuedAtS = Math.floor(Date.now() / 1000), nonce?: string): string {
  return Buffer.from(JSON.stringify({ sub: subject, iat: issuedAtS, ...(nonce ? { n: nonce } : {}) })).toString(
    'base64url',
  );
}

/** A fresh per-login nonce for adminCookiePayload. */
export function newSessionNonce(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * A complete signed value, as `reply.setCookie(..., {signed: true})` writes it, signed by a gate's
 * signer or by a key (ADMIN_SECRET) directly: the same signature either way.
 */
export function signAdminCookie(signing: AdminGate | Buffer | string, subject: string, issuedAtS?: number): string {
  const signer =
    typeof signing === 'string' || Buffer.isBuffer(signing) ? new Signer(signing, 'sha256') : signing.signer;
  return signer.sign(adminCookiePayload(subject, issuedAtS));
}

/** The session a signed value carries when its signature holds and it has not expired; whether it was ended is not asked. */
function verifiedSession(gate: AdminGate, signedValue: string, nowS: number): AdminSession | undefined {
  const unsigned = gate.signer.unsign(signedValue);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  let payload: z.infer<typeof cookiePayload>;
  try {
    payload = cookiePayload.parse(JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
  if (payload.iat > nowS + CLOCK_SKEW_S || nowS - payload.iat > ADMIN_COOKIE_MAX_AGE_S) return undefined;
  return { subject: payload.sub, issuedAtS: payload.iat, expiresAtS: payload.iat + ADMIN_COOKIE_MAX_AGE_S };
}

/**
 * The session of a valid, unexpired signed value that was not logged out; undefined for anything
 * else. A store of ended sessions that cannot answer is an error (no session is granted unasked).
 */
export async function readAdminCookie(
  gate: AdminGate,
  signedValue: string | undefined,
  nowS = Math.floor(Date.now() / 1000),
): Promise<AdminSession | undefined> {
  if (!signedValue) return undefined;
  const session = verifiedSession(gate, signedValue, nowS);
  if (!session) return undefined;
  const ended = await gate.ended.isEnded(signedValue, subjectUserId(session.subject), session.issuedAtS, nowS);
  return ended ? undefined : session;
}

/** Whether a raw Cookie header carries an admin cookie at all, valid or not (for the same-origin guard). */
export function carriesAdminCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((part) => part.trim().split('=')[0] === ADMIN_COOKIE);
}

/** The raw value of the admin cookie in a Cookie header (URI-decoded, as it was set). */
export function adminCookieValue(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1 || part.slice(0, separator).trim() !== ADMIN_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(separator + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The admin session in a raw Cookie header; only while admin mode is ready. The cookie alone: whether
 * its account still stands is admin-standing.ts's question, which every use of a session asks.
 */
export async function adminSessionFromCookieHeader(
  gate: AdminGate,
  cookieHeader: string | undefined,
  nowS?: number,
): Promise<AdminSession | undefined> {
  if (!gate.ready) return undefined;
  return readAdminCookie(gate, adminCookieValue(cookieHeader), nowS);
}

/** Ends every console session of an account issued up to now (its admin standing was lost). */
export async function endAccountSessions(
  gate: AdminGate,
  userId: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<void> {
  await gate.ended.endAccount(userId, nowS);
}

/** Logs a session out: its signed value is refused from now on, here (every server) and after a restart. */
export async function endAdminSession(
  gate: AdminGate,
  signedValue: string,
  session: AdminSession,
  nowS = Math.floor(Date.now() / 1000),
): Promise<void> {
  await gate.ended.end(signedValue, session.expiresAtS, nowS);
}

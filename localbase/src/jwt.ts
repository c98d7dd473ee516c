// HS256 JWTs as GoTrue issues them and PostgREST accepts them: signed with the project secret,
// verified with 30 s of clock skew, HS256 only (so `alg: none` and other algorithms are refused).
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { z } from 'zod';

export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof API_ROLES)[number];

const CLOCK_SKEW_SECONDS = 30;

/** The claims localbase relies on; anything else in the token is passed through to the database. */
export const claimsSchema = z
  .object({
    role: z.string().optional(),
    sub: z.string().optional(),
    exp: z.number().optional(),
    session_id: z.string().optional(),
    email: z.string().optional(),
  })
  .passthrough();
export type Claims = z.infer<typeof claimsSchema>;

export type JwtFailure = 'expired' | 'invalid' | 'bad_role';

export class JwtError extends Error {
  constructor(
    readonly reason: JwtFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifiedToken {
  role: ApiRole;
  claims: Claims;
}

function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export function signJwt(payload: JWTPayload, secret: string): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secretKey(secret));
}

/** Verifies signature, algorithm and expiry, then insists on one of the three API roles. */
export async function verifyJwt(token: string, secret: string): Promise<VerifiedToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, secretKey(secret), {
      algorithms: ['HS256'],
      clockTolerance: CLOCK_SKEW_SECONDS,
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new JwtError('expired', 'JWT expired');
    throw new JwtError('invalid', `JWT could not be verified: ${(error as Error).message}`);
  }
  const parsed = claimsSchema.safeParse(payload);
  if (!parsed.success) throw new JwtError('invalid', 'JWT claims have the wrong types');
  const role = parsed.data.role ?? 'anon';
  if (!(API_ROLES as readonly string[]).includes(role)) {
    throw new JwtError('bad_role', `JWT role "${role}" is not one of ${API_ROLES.join(', ')}`);
  }
  return { role: role as ApiRole, claims: parsed.data };
}

/** The bearer token of a request: Authorization when present, else the apikey header. */
export function requestToken(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (match) return match[1];
  }
  const apikey = headers.apikey;
  return typeof apikey === 'string' && apikey.length > 0 ? apikey : undefined;
}

/** How many distinct verified tokens to remember; the oldest is forgotten first. */
const VERIFIED_CACHE_SIZE = 5000;

/**
 * verifyJwt with memory: the same token string always verifies the same way until it expires, so
 * a hit skips the HMAC and claim parsing (about a fifth of a request's time). Only successes are
 * kept, and a hit past `exp` (plus the skew) is dropped and verified again, which then fails.
 */
export class TokenVerifier {
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(private readonly secret: string) {}

  async verify(token: string): Promise<VerifiedToken> {
    const hit = this.verified.get(token);
    const exp = hit?.claims.exp;
    if (hit && (exp === undefined || (exp + CLOCK_SKEW_SECONDS) * 1000 > Date.now())) return hit;
    if (hit) this.verified.delete(token);
    const fresh = await verifyJwt(token, this.secret);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, fresh);
    return fresh;
  }
}

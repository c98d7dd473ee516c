// JWTs as GoTrue issues them and PostgREST accepts them, verified with 30 s of clock skew. Two
// algorithms, as a hosted project that moved to asymmetric keys has: HS256 with the project secret
// (the anon and service_role keys, and sessions signed before the move) and ES256 with the project's
// signing key, named by `kid`. The key is chosen by the token's `alg` and `kid` and by nothing else,
// so an HS256 token can never be checked against a public key (`alg: none` and every other
// algorithm are refused).
import { errors, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
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

/** An ES256 key pair of the project, as JWKs (`kid` names it in token headers and the JWKS). */
export interface SigningKeyPair {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** The signing key ready for use: the private key signs, the public one verifies. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** As GET /auth/v1/.well-known/jwks.json publishes it. */
  publicJwk: JWK;
}

/**
 * What tokens are verified with: the HS256 secret and the ES256 public keys by `kid`. A bare string
 * is the secret alone (HS256 only), as the anon and service_role keys need.
 */
export type VerificationKeys = string | { secret: string; publicKeys: ReadonlyMap<string, CryptoKey> };

export async function importSigningKey(pair: SigningKeyPair): Promise<SigningKey> {
  const [privateKey, publicKey] = await Promise.all([
    importJWK(pair.privateJwk, 'ES256') as Promise<CryptoKey>,
    importJWK(pair.publicJwk, 'ES256') as Promise<CryptoKey>,
  ]);
  return {
    kid: pair.kid,
    privateKey,
    publicKey,
    publicJwk: { ...pair.publicJwk, kid: pair.kid, alg: 'ES256', use: 'sig', key_ops: ['verify'] },
  };
}

/** Signs with the secret (HS256), or with the signing key (ES256, its `kid` in the header). */
export function signJwt(payload: JWTPayload, key: string | SigningKey): Promise<string> {
  if (typeof key === 'string') {
    return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secretKey(key));
  }
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: key.kid }).sign(key.privateKey);
}

/** The key a token's header asks for, among the ones the project has; anything else is refused. */
function keyFor(keys: VerificationKeys, header: { alg?: string; kid?: string }): Uint8Array | CryptoKey {
  const secret = typeof keys === 'string' ? keys : keys.secret;
  if (header.alg === 'HS256') return secretKey(secret);
  if (header.alg === 'ES256' && typeof keys !== 'string' && header.kid !== undefined) {
    const publicKey = keys.publicKeys.get(header.kid);
    if (publicKey) return publicKey;
  }
  throw new Error(`no key for alg ${header.alg ?? '(none)'} and kid ${header.kid ?? '(none)'}`);
}

/** Verifies signature, algorithm and expiry, then insists on one of the three API roles. */
export async function verifyJwt(token: string, keys: VerificationKeys): Promise<VerifiedToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, (header) => keyFor(keys, header), {
      algorithms: typeof keys === 'string' ? ['HS256'] : ['HS256', 'ES256'],
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

  constructor(private readonly keys: VerificationKeys) {}

  async verify(token: string): Promise<VerifiedToken> {
    const hit = this.verified.get(token);
    const exp = hit?.claims.exp;
    if (hit && (exp === undefined || (exp + CLOCK_SKEW_SECONDS) * 1000 > Date.now())) return hit;
    if (hit) this.verified.delete(token);
    const fresh = await verifyJwt(token, this.keys);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, fresh);
    return fresh;
  }
}

// Signed URL tokens as storage-api issues them: HS256 JWTs signed with the project's JWT secret,
// naming the one object they open (`url`: `<bucket>/<name>`) and what they allow (`scope`:
// download or upload). A download token may carry the image transformations it was signed with; an
// upload token carries the signer as `owner` and whether it may replace (`upsert`). Neither has a
// role, so on every other API it is no more than the anon key.
import { z } from 'zod';
import { JwtError, signJwt, verifyJwt, type VerificationKeys } from '../jwt.ts';
import { invalidJwt, StorageError } from './errors.ts';

export const SIGNED_URL_SCOPE_DOWNLOAD = 'download';
export const SIGNED_URL_SCOPE_UPLOAD = 'upload';
export type SignedUrlScope = typeof SIGNED_URL_SCOPE_DOWNLOAD | typeof SIGNED_URL_SCOPE_UPLOAD;

/** storage-api's default for signed upload URLs: two hours. */
export const UPLOAD_SIGNED_URL_SECONDS = 2 * 60 * 60;
/** The longest a signed URL may live: a year, as storage-api's assertValidNumericJWTExpiration. */
export const MAX_SIGNED_URL_SECONDS = 365 * 24 * 60 * 60;

const signedPayload = z.object({
  url: z.string(),
  scope: z.enum([SIGNED_URL_SCOPE_DOWNLOAD, SIGNED_URL_SCOPE_UPLOAD]),
  exp: z.number(),
  transformations: z.string().optional(),
  owner: z.string().optional(),
  upsert: z.boolean().optional(),
});
export type SignedPayload = z.infer<typeof signedPayload>;

export const invalidSignature = (message = 'Invalid signature') =>
  new StorageError(400, 'InvalidSignature', 'InvalidSignature', message);
export const expiredSignature = () =>
  new StorageError(400, 'ExpiredToken', 'ExpiredToken', 'The provided token has expired.');

export function signedUrlLifetime(expiresIn: number): number {
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_SIGNED_URL_SECONDS) {
    throw new StorageError(
      400,
      'InvalidRequest',
      'Bad Request',
      `expiresIn must be a whole number of seconds from 1 to ${MAX_SIGNED_URL_SECONDS}`,
    );
  }
  return expiresIn;
}

export interface SignRequest {
  bucket: string;
  name: string;
  scope: SignedUrlScope;
  expiresIn: number;
  transformations?: string;
  owner?: string;
  upsert?: boolean;
}

export function signObjectToken(secret: string, request: SignRequest): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    url: `${request.bucket}/${request.name}`,
    scope: request.scope,
    iat: now,
    exp: now + request.expiresIn,
  };
  if (request.transformations) claims.transformations = request.transformations;
  if (request.scope === SIGNED_URL_SCOPE_UPLOAD) {
    if (request.owner) claims.owner = request.owner;
    claims.upsert = Boolean(request.upsert);
  }
  return signJwt(claims, secret);
}

/**
 * storage-api's verifyObjectSignature: a good signature, the scope asked for, the very object of
 * the URL, not expired. A token past `exp` by more than the clock skew fails verification itself
 * (`InvalidJWT` "jwt expired", as storage-api's verifier answers); within the skew it is
 * `ExpiredToken`, as storage-api's own expiry check answers.
 */
export async function verifyObjectToken(
  keys: VerificationKeys,
  token: string | undefined,
  expected: { bucket: string; name: string; scope: SignedUrlScope },
): Promise<SignedPayload> {
  if (!token) throw invalidJwt('Missing token');
  let claims: unknown;
  try {
    claims = (await verifyJwt(token, keys)).claims;
  } catch (error) {
    if (error instanceof JwtError) throw invalidJwt(error.reason === 'expired' ? 'jwt expired' : error.message);
    throw error;
  }
  const parsed = signedPayload.safeParse(claims);
  if (!parsed.success || parsed.data.scope !== expected.scope) {
    throw invalidSignature(`Token is not scoped for ${expected.scope}`);
  }
  if (parsed.data.url !== `${expected.bucket}/${expected.name}`) throw invalidSignature();
  if (parsed.data.exp * 1000 < Date.now()) throw expiredSignature();
  return parsed.data;
}

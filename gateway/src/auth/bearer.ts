// The caller's access token from `Authorization: Bearer ...`, and the user id it claims. The
// gateway does not verify the token itself: every call it makes with it is checked by the backend
// (and RLS), so a forged `sub` only ever reaches rows the forger's own valid token could.
import type { FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { GatewayError } from '../http-errors.ts';

export interface Caller {
  token: string;
  userId: string;
}

export function requireBearer(request: FastifyRequest): Caller {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1])
    throw new GatewayError(401, 'missing_token', 'Send the access token as "Authorization: Bearer <token>".');
  let sub: unknown;
  try {
    sub = decodeJwt(match[1]).sub;
  } catch {
    throw new GatewayError(401, 'invalid_token', 'The access token is not a JWT; sign in again.');
  }
  if (typeof sub !== 'string' || !/^[0-9a-f-]{36}$/i.test(sub)) {
    throw new GatewayError(401, 'invalid_token', 'The access token does not name a user; sign in again.');
  }
  return { token: match[1], userId: sub };
}

/**
 * A route's preValidation hook: the token is checked before the body meets its schema, so a caller
 * without one is told 401 (as before any other check), never what the body lacks.
 */
export async function bearerBeforeBody(request: FastifyRequest): Promise<void> {
  requireBearer(request);
}

// Access tokens for the realtime tests that must hold a session's token at a chosen age: the same
// claims (the same session, the same user) signed again with the project's JWT secret, which every
// API still verifies (HS256, as sessions issued before the signing key were), with `exp` moved.
import { decodeJwt } from 'jose';
import type { Localbase } from '../server.ts';
import { signJwt } from '../src/jwt.ts';

/** `token` as it would be had it expired `secondsAgo` seconds ago (negative: expiring that far ahead). */
export async function tokenExpiredAgo(localbase: Localbase, token: string, secondsAgo: number): Promise<string> {
  const claims = decodeJwt(token);
  return signJwt({ ...claims, exp: Math.floor(Date.now() / 1000) - secondsAgo }, localbase.jwtSecret);
}

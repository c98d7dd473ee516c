// Who is calling: the verified JWT of a request (Authorization, else the apikey), as every API
// family reads it. A request with neither is refused, as the hosted API gateway refuses it.
import { requestToken, type TokenVerifier, type VerifiedToken } from './jwt.ts';

export class MissingApiKeyError extends Error {
  constructor() {
    super('No API key found in request');
  }
}

export async function resolveCaller(
  headers: Record<string, string | string[] | undefined>,
  verifier: TokenVerifier,
): Promise<VerifiedToken> {
  const token = requestToken(headers);
  if (!token) throw new MissingApiKeyError();
  return verifier.verify(token);
}

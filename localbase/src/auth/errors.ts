// GoTrue's two error shapes: with `X-Supabase-Api-Version: 2024-01-01` (auth-js always sends it)
// `{code, message}` plus the echoed version header and `x-sb-error-code`; without it the legacy
// `{code: <status>, error_code, msg}`.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const API_VERSION_HEADER = 'x-supabase-api-version';
export const API_VERSION_2024 = '2024-01-01';

export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** More fields of the body, as GoTrue adds them (`weak_password: {reasons}`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function sendAuthError(request: FastifyRequest, reply: FastifyReply, error: AuthError): FastifyReply {
  reply.header('x-sb-error-code', error.code);
  if (request.headers[API_VERSION_HEADER] === API_VERSION_2024) {
    return reply
      .header(API_VERSION_HEADER, API_VERSION_2024)
      .status(error.status)
      .send({ code: error.code, message: error.message, ...error.extra });
  }
  return reply
    .status(error.status)
    .send({ code: error.status, error_code: error.code, msg: error.message, ...error.extra });
}

export const invalidCredentials = () => new AuthError(400, 'invalid_credentials', 'Invalid login credentials');
export const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);
export const noAuthorization = () =>
  new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
export const badJwt = (message: string) => new AuthError(403, 'bad_jwt', `invalid JWT: ${message}`);
export const notAdmin = () => new AuthError(403, 'not_admin', 'User not allowed');
export const sessionNotFound = () =>
  new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
export const userNotFound = () => new AuthError(404, 'user_not_found', 'User not found');
export const emailExists = () =>
  new AuthError(422, 'email_exists', 'A user with this email address has already been registered');
/** A mailed link that is unknown, spent, expired or replaced. */
export const linkExpired = () => new AuthError(403, 'otp_expired', 'Email link is invalid or has expired');

/** GoTrue's OAuth-style refusal: HTTP 400 with `{error, error_description}`, whatever the API version. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

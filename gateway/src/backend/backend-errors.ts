// How a backend failure reads to the gateway's caller, decided here and only here: every wrapper
// throws the BackendError it got and the error handler (error-handler.ts) maps it with
// `toGatewayError`. The rule: a failure the caller caused is a 4xx that says what to fix; only a
// backend that is missing, broken or too slow is a 5xx (502 backend_unavailable / backend_error,
// 504 backend_timeout).
//
// Sources of codes, most specific first:
// 1. The project's own: database functions raise `raise exception '<code>' using errcode = 'P0xxx'`,
//    and PostgREST sends `{code: 'P0xxx', message: '<code>', hint}`. The message is the stable code,
//    looked up in the registry of raised codes (contracts/raised-codes.ts), which gives the status.
// 2. GoTrue's `error_code` (auth), storage's `statusCode` + `code`, PostgREST's PGRSTxxx.
// 3. SQLSTATE classes (PostgREST puts the SQLSTATE in `code`): 22 (bad value) 400; 23 (constraint)
//    400, or 409 for unique, foreign key and exclusion; 42501 (privilege, row-level security) 403.
// 4. The HTTP status: other 4xx keep their status, 5xx become 502.
import { raisedCode } from '#contracts/raised-codes.ts';
import { GatewayError } from '../http-errors.ts';
import type { BackendError } from './backend-client.ts';

interface Mapped {
  status: number;
  /** The gateway's error code. */
  error: string;
  /** A sentence for the caller instead of the backend's own message. */
  message?: string;
}

const INVALID_SESSION: Mapped = {
  status: 401,
  error: 'invalid_token',
  message: 'The access token is missing, invalid or expired; sign in again.',
};
const WRONG_CREDENTIALS: Mapped = {
  status: 401,
  error: 'invalid_credentials',
  message: 'The e-mail or password is wrong.',
};
const EMAIL_TAKEN: Mapped = {
  status: 409,
  error: 'email_taken',
  message: 'An account with this e-mail already exists; log in instead.',
};

/** Auth (GoTrue and localbase), storage and PostgREST codes. */
const BACKEND_CODES: Record<string, Mapped> = {
  bad_jwt: INVALID_SESSION,
  no_authorization: INVALID_SESSION,
  session_not_found: INVALID_SESSION,
  session_expired: INVALID_SESSION,
  refresh_token_not_found: INVALID_SESSION,
  refresh_token_already_used: INVALID_SESSION,
  PGRST301: INVALID_SESSION,
  PGRST302: INVALID_SESSION,
  PGRST303: INVALID_SESSION,
  InvalidJWT: INVALID_SESSION,
  invalid_credentials: WRONG_CREDENTIALS,
  invalid_grant: WRONG_CREDENTIALS,
  // Answered only for the right password (GoTrue's order): the account is suspended.
  user_banned: {
    status: 403,
    error: 'account_suspended',
    message: 'This account is suspended; ask whoever runs this server.',
  },
  email_exists: EMAIL_TAKEN,
  user_already_exists: EMAIL_TAKEN,
  weak_password: { status: 400, error: 'weak_password' },
  validation_failed: { status: 400, error: 'invalid_request' },
  email_address_invalid: { status: 400, error: 'invalid_request' },
  bad_json: { status: 400, error: 'invalid_json' },
  PGRST102: { status: 400, error: 'invalid_json' },
  over_request_rate_limit: { status: 429, error: 'rate_limited' },
  over_email_send_rate_limit: { status: 429, error: 'rate_limited' },
  request_too_large: { status: 413, error: 'payload_too_large' },
  EntityTooLarge: { status: 413, error: 'payload_too_large' },
  InvalidMimeType: { status: 415, error: 'unsupported_media_type' },
  request_timeout: { status: 504, error: 'backend_timeout' },
  backend_timeout: { status: 504, error: 'backend_timeout' },
  backend_unavailable: { status: 502, error: 'backend_unavailable' },
  service_key_missing: { status: 503, error: 'service_key_missing' },
  PGRST116: { status: 404, error: 'not_found' },
  // The gateway asked for something the backend's schema lacks: a deployment problem, not the caller's.
  PGRST202: { status: 502, error: 'backend_schema_missing' },
  PGRST205: { status: 502, error: 'backend_schema_missing' },
  '42883': { status: 502, error: 'backend_schema_missing' },
  '42P01': { status: 502, error: 'backend_schema_missing' },
  '42501': { status: 403, error: 'forbidden' },
};

const STATUS_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_request',
  429: 'rate_limited',
};

/** A table lookup that only sees the table's own keys (a backend may send `__proto__` as a code). */
function own(table: Record<string, Mapped>, key: string): Mapped | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function bySqlState(code: string): Mapped | undefined {
  if (/^P0\d{3}$/.test(code)) {
    // A raise the registry does not know yet: still the caller's problem, never a 502.
    return { status: code === 'P0002' ? 404 : code === 'P0003' ? 403 : 400, error: 'rejected' };
  }
  if (code.startsWith('22')) return { status: 400, error: 'invalid_value' };
  if (code === '23505' || code === '23503' || code === '23P01') return { status: 409, error: 'conflict' };
  if (code.startsWith('23')) return { status: 400, error: 'invalid_value' };
  return undefined;
}

function byStatus(status: number): Mapped {
  if (status === 504) return { status: 504, error: 'backend_timeout' };
  if (status >= 400 && status < 500)
    return {
      status,
      error: (Object.hasOwn(STATUS_CODES, status) ? STATUS_CODES[status] : undefined) ?? 'invalid_request',
    };
  return { status: 502, error: 'backend_error' };
}

/** What the gateway answers for a backend failure: status, code, a sentence, and where it came from. */
export function toGatewayError(failure: BackendError): GatewayError {
  const raised = /^P0\d{3}$/.test(failure.code) ? raisedCode(failure.message) : undefined;
  if (raised) {
    const error = raised.gatewayCode ?? failure.message;
    const sentence = failure.hint
      ? `${failure.hint[0]?.toUpperCase()}${failure.hint.slice(1)}.`
      : `The database refused this: ${failure.message}.`;
    return new GatewayError(raised.status, error, sentence, { backend_code: failure.code });
  }
  const mapped = own(BACKEND_CODES, failure.code) ?? bySqlState(failure.code) ?? byStatus(failure.status);
  const error = mapped.error;
  const details: Record<string, unknown> = { backend_code: failure.code };
  if (mapped.status >= 500) details.backend_status = failure.status;
  // Why a password was refused (too short, too common), so the app can say it in its own words.
  if (error === 'weak_password') details.reasons = failure.weakPasswordReasons;
  return new GatewayError(mapped.status, error, mapped.message ?? failure.message, details);
}

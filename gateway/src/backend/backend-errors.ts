// How a backend failure reads to the gateway's caller, decided here and only here: every wrapper
// throws the BackendError it got and the error handler (error-handler.ts) maps it with
// `toGatewayError`. The rule: a failure the caller caused is a 4xx that says what to fix; only a
// backend that is missing, broken or too slow is a 5xx (502 backend_unavailable / backend_error,
// 504 backend_timeout).
//
// Sources of codes, most specific first:
// 1. The project's own: database functions raise `raise exception '<code>' using errcode = 'P0xxx'`,
//    and PostgREST sends `{code: 'P0xxx', message: '<code>', hint}`. The message is the stable code.
// 2. GoTrue's `error_code` (auth), storage's `statusCode` + `code`, PostgREST's PGRSTxxx.
// 3. SQLSTATE classes (PostgREST puts the SQLSTATE in `code`): 22 (bad value) 400; 23 (constraint)
//    400, or 409 for unique, foreign key and exclusion; 42501 (privilege, row-level security) 403.
// 4. The HTTP status: other 4xx keep their status, 5xx become 502.
import { GatewayError } from '../http-errors.ts';
import type { BackendError } from './backend-client.ts';

interface Mapped {
  status: number;
  /** The gateway's error code; defaults to the database's own code. */
  error?: string;
  /** A sentence for the caller instead of the backend's own message. */
  message?: string;
}

/** Every code the migrations raise (a test reads them all and fails on one missing here). */
export const DATABASE_RAISED_CODES: Record<string, Mapped> = {
  not_authenticated: { status: 401 },
  not_group_member: { status: 403 },
  not_group_owner: { status: 403 },
  invite_required: { status: 403 },
  user_not_found: { status: 404 },
  group_not_found: { status: 404 },
  request_not_found: { status: 404 },
  connection_not_found: { status: 404 },
  target_not_found: { status: 404 },
  invalid_invite: { status: 404 },
  invite_not_found: { status: 404 },
  handle_taken: { status: 409 },
  already_buddies: { status: 409 },
  request_pending: { status: 409 },
  last_owner: { status: 409 },
  own_invite: { status: 400 },
  cannot_befriend_self: { status: 400 },
  cannot_remove_self: { status: 400 },
  cannot_demote_self: { status: 400 },
  too_many_minutes: { status: 400 },
  // A study session that could not have happened: ends in the future, counts more minutes than it
  // lasted, holds more answers than its minutes allow, or overlaps another of the student's.
  session_in_future: { status: 400 },
  minutes_exceed_duration: { status: 400 },
  too_many_answers: { status: 400 },
  session_overlaps: { status: 409 },
  // Voiding a study session (admins and the service role only).
  not_admin: { status: 403 },
  invalid_void_reason: { status: 400 },
  session_not_found: { status: 404 },
  already_voided: { status: 409 },
  invalid_handle: { status: 400 },
  invalid_privacy: { status: 400 },
  invalid_role: { status: 400 },
  invalid_message: { status: 400 },
  invalid_max_uses: { status: 400 },
  invalid_days: { status: 400 },
  invalid_target: { status: 400 },
  invalid_reason: { status: 400 },
  invalid_quiet_hours: { status: 400 },
  invalid_session: { status: 400 },
  invalid_state: { status: 400 },
  invalid_invite_type: { status: 400 },
  // The admin console's operations (service role only).
  archive_not_found: { status: 404 },
  role_not_found: { status: 404 },
  last_admin: { status: 409 },
  own_admin_row: { status: 409 },
  not_check_account: { status: 409 },
  backup_changed: { status: 409 },
  already_restored: { status: 409 },
  invalid_payload: { status: 400 },
  // Start-alert delivery (service role only): a malformed claim, retry time or retention.
  invalid_claim: { status: 400 },
  invalid_retry: { status: 400 },
  invalid_keep: { status: 400 },
  // Scheduling the push for the end of a timer phase.
  invalid_phase_end: { status: 400 },
  // A push device token, not the caller's access token (which is the gateway's 401 invalid_token).
  invalid_token: { status: 400, error: 'invalid_device_token' },
  // Moderation and account deletion.
  message_not_found: { status: 404 },
  cannot_delete_message: { status: 403 },
  report_not_found: { status: 404 },
  report_already_resolved: { status: 409 },
  invalid_resolution: { status: 400 },
  audit_log_immutable: { status: 403 },
  invalid_confirmation: { status: 400 },
  storage_objects_remain: { status: 409 },
  last_admin_account: { status: 409 },
  invalid_audit_entry: { status: 400 },
};

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
    // A raise the table above does not know yet: still the caller's problem, never a 502.
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
  const raised = /^P0\d{3}$/.test(failure.code) ? own(DATABASE_RAISED_CODES, failure.message) : undefined;
  if (raised) {
    const error = raised.error ?? failure.message;
    const sentence = failure.hint
      ? `${failure.hint[0]?.toUpperCase()}${failure.hint.slice(1)}.`
      : `The database refused this: ${failure.message}.`;
    return new GatewayError(raised.status, error, sentence, { backend_code: failure.code });
  }
  const mapped = own(BACKEND_CODES, failure.code) ?? bySqlState(failure.code) ?? byStatus(failure.status);
  const error = mapped.error ?? 'backend_error';
  const details: Record<string, unknown> = { backend_code: failure.code };
  if (mapped.status >= 500) details.backend_status = failure.status;
  // Why a password was refused (too short, too common), so the app can say it in its own words.
  if (error === 'weak_password') details.reasons = failure.weakPasswordReasons;
  return new GatewayError(mapped.status, error, mapped.message ?? failure.message, details);
}

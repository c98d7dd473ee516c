// The account screens' failures in a student's words: what happened, and that nothing changed
// when nothing did. Codes come from the backend's auth API (GoTrue's), the database's raises and
// the app's own `offline` / `backend_down` (state/account.ts).
import { ApiError, describeError } from './api.ts';
import { weakPasswordSentence } from './password-words.ts';
import { RAISED_CODE_SENTENCES } from './raised-code-words.ts';

/** Who can help with what only the server's owner can change (a ban, a reset link without mail). */
export const SERVER_OWNER = 'the person who runs this studyhall server';

/** A suspended account, with when the suspension ends in the student's local time, date included. */
export function suspendedSentence(bannedUntil: string | null | undefined): string {
  const end = bannedUntil ? new Date(bannedUntil) : null;
  const until =
    end && !Number.isNaN(end.getTime())
      ? ` until ${end.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })}`
      : '';
  return `This account is suspended${until}, so it cannot sign in. To talk about it, ask ${SERVER_OWNER}.`;
}

export function accountProblem(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong on this page. Nothing was changed; try again.';
  switch (error.code) {
    case 'offline':
      return 'The server cannot be reached: you may be offline, or studyhall is not running. Nothing was changed; try again when it answers.';
    case 'backend_down':
      return "The server's account service is not answering. Nothing was changed; try again in a minute.";
    case 'weak_password':
      return weakPasswordSentence(error.details.reasons as unknown[] | undefined);
    case 'invalid_credentials':
    case 'invalid_grant':
      return 'Your current password is not right.';
    case 'same_password':
      return 'That is already your password. Choose a new one.';
    case 'email_exists':
    case 'email_taken':
      return 'Another account already uses this address.';
    case 'email_address_invalid':
    case 'validation_failed':
      return 'Enter an e-mail address, like name@example.com.';
    case 'over_email_send_rate_limit':
    case 'over_request_rate_limit':
    case 'rate_limited':
      return 'Too many requests from this device. Wait a minute, then try again.';
    case 'reauthentication_needed':
    case 'reauthentication_not_valid':
      return 'Enter your current password to change it.';
    case 'account_suspended':
    case 'user_banned':
      return suspendedSentence(error.details.banned_until as string | null | undefined);
    case 'invalid_confirmation':
      return RAISED_CODE_SENTENCES.invalid_confirmation;
    case 'storage_objects_remain':
      return RAISED_CODE_SENTENCES.storage_objects_remain;
    case 'password_required':
      return RAISED_CODE_SENTENCES.password_required;
    case 'session_not_found':
    case 'bad_jwt':
    case 'not_authenticated':
    case 'PGRST301':
    case 'PGRST303':
      return 'Your sign-in has expired. Sign out, sign in again, and try once more.';
    default:
      return describeError(error);
  }
}

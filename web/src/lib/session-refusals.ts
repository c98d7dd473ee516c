// The database refuses a study session that could not have happened (docs/database.md, "Plausible
// sessions"); sending it again can only be refused again. The refusal is recognised by its stable
// code, never by the HTTP status: through /__backend localbase answers 400, but a hosted project
// answers 500 for every raised code but P0001, which the outbox would otherwise take for a server
// trouble and retry forever.
import type { SentenceKey } from '#contracts/raised-codes.ts';
import { ApiError } from './api.ts';

/**
 * Each refusal of record_study_session, in words a student can act on: the sentences the registry
 * of raised codes names for them (raised-code-words.ts takes them from here, so the focus screen,
 * whose outbox reads them, does not load every code's sentence).
 */
export const SESSION_REFUSALS = {
  invalid_session:
    'This session starts in the future or has an impossible length or answer count, so it was not saved.',
  too_many_minutes: 'This day already holds 24 hours of study, so this session was not saved.',
  session_in_future: 'This session ends in the future: check the date and time of your device. It was not saved.',
  minutes_exceed_duration:
    'This session counts more minutes than passed between its start and its end, so it was not saved.',
  session_overlaps: 'This session overlaps another session you already saved, so it was not saved.',
  too_many_answers: 'This session has more than 10 answers per minute of study, so it was not saved.',
} satisfies Partial<Record<SentenceKey, string>>;

/**
 * The refusal as a permanent 400 with the student's sentence when `error` is one of the session
 * codes (PostgREST puts it in `message`, the gateway in `error`); null for anything else.
 */
export function sessionRefusal(error: unknown): ApiError | null {
  if (!(error instanceof ApiError) || error.status === 0) return null;
  const refusals: Record<string, string> = SESSION_REFUSALS;
  const code = [error.message, error.code].find((candidate) => Object.hasOwn(refusals, candidate));
  return code === undefined ? null : new ApiError(400, code, refusals[code] as string, error.details);
}

// A student's study sessions for the sessions page (service role: the console reads past RLS),
// finding her by e-mail, handle or id, and voiding one through public.void_study_session, which
// recomputes her statistics in the same transaction (docs/database.md#voided-sessions).
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { listAccounts } from '../backend-users.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// private.is_valid_handle: 3 to 24 letters, digits, `_` or `.`.
const HANDLE = /^[A-Za-z0-9_.]{3,24}$/;
/** The newest sessions the page lists; a student with more sees a note that the list is cut. */
export const SESSION_PAGE_LIMIT = 500;

export interface Student {
  userId: string;
  email: string | null;
  handle: string | null;
}

export const sessionRow = z.object({
  id: z.string(),
  client_id: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string(),
  study_day: z.string(),
  minutes: z.number(),
  subject_name: z.string().nullable(),
  task_title: z.string().nullable(),
  correct: z.number(),
  incorrect: z.number(),
  skipped: z.number(),
  voided_at: z.string().nullable(),
  voided_by: z.string().nullable(),
  void_reason: z.string().nullable(),
});
export type StudySession = z.infer<typeof sessionRow>;

const profileRow = z.object({ user_id: z.string(), handle: z.string().nullable() });

async function handleOf(backend: BackendClient, userId: string): Promise<string | null> {
  const rows = await backend.select(`user_profiles?select=user_id,handle&user_id=eq.${userId}`, { serviceRole: true });
  return z.array(profileRow).parse(rows)[0]?.handle ?? null;
}

/** The student an admin typed: an account id, an e-mail (has an @) or a handle (with or without a leading @). */
export async function findStudent(backend: BackendClient, typed: string): Promise<Student> {
  const wanted = typed.trim();
  if (UUID.test(wanted) || wanted.slice(1).includes('@')) {
    const accounts = await listAccounts(backend);
    const lower = wanted.toLowerCase();
    const account = accounts.find((item) => item.id === lower || item.email === lower);
    if (!account) throw new GatewayError(404, 'user_not_found', `No account has the id or e-mail ${wanted}.`);
    return { userId: account.id, email: account.email, handle: await handleOf(backend, account.id) };
  }
  const handle = wanted.replace(/^@/, '');
  if (!HANDLE.test(handle)) {
    throw new GatewayError(
      400,
      'invalid_account',
      'Type an e-mail address, a handle (3 to 24 letters, digits, _ or .) or an account id.',
    );
  }
  // ilike is case-insensitive, as handles are unique; `_` is a one-character wildcard there, so the
  // exact match is decided here.
  const rows = z
    .array(profileRow)
    .parse(await backend.select(`user_profiles?select=user_id,handle&handle=ilike.${handle}`, { serviceRole: true }));
  const profile = rows.find((row) => row.handle?.toLowerCase() === handle.toLowerCase());
  if (!profile) throw new GatewayError(404, 'user_not_found', `No student has the handle ${handle}.`);
  const account = (await listAccounts(backend)).find((item) => item.id === profile.user_id);
  return { userId: profile.user_id, email: account?.email ?? null, handle: profile.handle };
}

/** Her sessions, newest first (voided ones included, marked), at most SESSION_PAGE_LIMIT. */
export async function listStudySessions(backend: BackendClient, userId: string): Promise<StudySession[]> {
  const columns =
    'id,client_id,started_at,ended_at,study_day,minutes,subject_name,task_title,correct,incorrect,skipped,voided_at,voided_by,void_reason';
  const rows = await backend.select(
    `study_sessions?select=${columns}&user_id=eq.${userId}&order=started_at.desc,id.desc&limit=${SESSION_PAGE_LIMIT}`,
    { serviceRole: true },
  );
  return z.array(sessionRow).parse(rows);
}

export const voidResult = z.object({
  session_id: z.string(),
  user_id: z.string(),
  study_day: z.string(),
  minutes: z.number(),
  voided_at: z.string(),
  voided_by: z.string(),
  void_reason: z.string(),
});
export type VoidResult = z.infer<typeof voidResult>;

/** What the database refuses, as the console says it (nothing was changed in every case). */
const VOID_REFUSALS: Record<string, { status: number; message: string }> = {
  invalid_void_reason: {
    status: 400,
    message: 'Give a reason for the void, 1 to 500 characters; nothing was changed.',
  },
  session_not_found: { status: 404, message: 'No study session has that id; nothing was changed.' },
  already_voided: {
    status: 409,
    message: 'That session was already voided; the first void and its reason stand, nothing was changed.',
  },
};

/** Voids a session as the console's signed-in admin (recorded as the voider). */
export async function voidStudySession(
  backend: BackendClient,
  input: { sessionId: string; reason: string; voidedBy: string },
): Promise<VoidResult> {
  try {
    const body = await backend.rpc(
      'void_study_session',
      { p_session_id: input.sessionId, p_reason: input.reason, p_voided_by: input.voidedBy },
      { serviceRole: true },
    );
    return voidResult.parse(body);
  } catch (error) {
    const refusal = error instanceof BackendError ? VOID_REFUSALS[error.message] : undefined;
    if (error instanceof BackendError && refusal)
      throw new GatewayError(refusal.status, error.message, refusal.message);
    throw error;
  }
}

// Open reports with their context, read with public.admin_open_reports() (oldest first: the report
// that has waited longest is judged first), and their resolution with public.resolve_report(),
// which applies deleting the message or removing the member in the same transaction and records
// it in the audit log. A ban is the auth API's (GoTrue's ban_duration): resolved in the database
// first, so a refused resolution bans nobody.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { isMissingFunction } from '../patch-functions.ts';
import { setBan, type BanDuration } from '../users/users.ts';

const reportMessage = z.object({
  id: z.string(),
  sender_id: z.string().nullable(),
  sender_handle: z.string().nullable(),
  content: z.string().nullable(),
  created_at: z.string(),
  deleted_at: z.string().nullable().optional(),
});
export type ReportMessage = z.infer<typeof reportMessage>;

export const openReport = z.object({
  report: z.object({
    id: z.string(),
    target_type: z.enum(['message', 'user', 'group']),
    target_id: z.string(),
    reason: z.string().nullable(),
    created_at: z.string(),
  }),
  reporter: z.object({ id: z.string().nullable(), handle: z.string().nullable() }),
  reported_user: z
    .object({ id: z.string(), handle: z.string().nullable(), display_name: z.string().nullable() })
    .nullable(),
  group: z.object({ id: z.string(), name: z.string(), slug: z.string().nullable() }).loose().nullable(),
  message: reportMessage.nullable(),
  before: z.array(reportMessage),
  after: z.array(reportMessage),
});
export type OpenReport = z.infer<typeof openReport>;

export type Resolution = 'dismiss' | 'delete_message' | 'remove_member' | 'ban';

/** The codes resolve_report raises, as the console answers them. */
const RESOLVE_ERRORS: Record<string, [number, string]> = {
  report_not_found: [404, 'No open report has that id.'],
  report_already_resolved: [409, 'This report was resolved already, perhaps by another admin.'],
  invalid_resolution: [400, 'That resolution does not fit this report'],
  last_owner: [409, 'The student is the group’s only owner: make another member an owner first.'],
  not_admin: [403, 'Only an admin of the app may resolve reports.'],
};

function patchMissing(error: unknown): never {
  if (isMissingFunction(error))
    throw new GatewayError(
      502,
      'patch_not_applied',
      'The project has no report functions: apply community-patch-v6.sql (see /__admin/patch).',
    );
  throw error;
}

export async function listOpenReports(backend: BackendClient, limit = 50): Promise<OpenReport[]> {
  let body: unknown;
  try {
    body = await backend.rpc('admin_open_reports', { p_limit: limit, p_offset: 0 }, { serviceRole: true });
  } catch (error) {
    patchMissing(error);
  }
  return z.array(openReport).parse(body);
}

/** Resolves one report; with `ban`, the reported student is banned once the resolution holds. */
export async function resolveReport(
  backend: BackendClient,
  request: { reportId: string; resolution: Resolution; note: string; banFor?: BanDuration },
): Promise<{ bannedUserId: string | null }> {
  let resolved: unknown;
  try {
    resolved = await backend.rpc(
      'resolve_report',
      {
        p_report_id: request.reportId,
        p_resolution: request.resolution,
        p_note: request.note === '' ? null : request.note,
      },
      { serviceRole: true },
    );
  } catch (error) {
    if (error instanceof BackendError && error.message && RESOLVE_ERRORS[error.message]) {
      const [status, sentence] = RESOLVE_ERRORS[error.message] as [number, string];
      const hint = error.message === 'invalid_resolution' && error.hint ? `: ${error.hint}.` : '';
      throw new GatewayError(status, error.message, `${sentence}${hint}`);
    }
    patchMissing(error);
  }
  if (request.resolution !== 'ban') return { bannedUserId: null };
  const report = z.object({ target_type: z.string(), target_id: z.string() }).loose().parse(resolved);
  const bannedUserId =
    report.target_type === 'user' ? report.target_id : await messageSender(backend, report.target_id);
  if (!bannedUserId) throw new GatewayError(409, 'nobody_to_ban', 'This report names no student to ban.');
  await setBan(backend, bannedUserId, request.banFor ?? '24h');
  return { bannedUserId };
}

async function messageSender(backend: BackendClient, messageId: string): Promise<string | null> {
  const rows = await backend.select(`group_chat_messages?select=sender_id&id=eq.${encodeURIComponent(messageId)}`, {
    serviceRole: true,
  });
  return z.array(z.object({ sender_id: z.string().nullable() })).parse(rows)[0]?.sender_id ?? null;
}

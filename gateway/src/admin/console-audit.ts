// What the console does on someone's account lands in the database's audit log, next to every
// moderation action, with the admin who did it: each call the console makes for a signed-in
// admin carries her subject in `x-studyhall-console-admin` (the database keeps it on every row the
// service role writes; the backend proxy names an admin's /__backend requests the same way and
// drops the header from everything else, so only the gateway names anyone), and what happens
// outside the database (a ban or a reset link through the auth API) is appended with
// public.admin_audit_console_action. The console's own file log (audit-log.ts) keeps recording
// too, so an owner without the patch still sees it.
import type { FastifyRequest } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import type { AdminContext } from './admin-context.ts';

export const CONSOLE_ADMIN_HEADER = 'x-studyhall-console-admin';

function subjectOf(request: FastifyRequest): string {
  return request.adminSession?.subject ?? 'unknown';
}

/** The console's backend client for this request: one route budget, the admin named on every call. */
export function consoleBackend(context: AdminContext, request: FastifyRequest): BackendClient {
  return context.backend.forRoute().withHeaders({ [CONSOLE_ADMIN_HEADER]: subjectOf(request) });
}

/** Records an action on an account (`action` without the `console:` prefix), in the database and the file. */
export async function recordConsoleAction(
  context: AdminContext,
  request: FastifyRequest,
  backend: BackendClient,
  action: string,
  targetUserId: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await context.audit.record(
    {
      subject: subjectOf(request),
      action: action.replaceAll('_', '-'),
      ...(targetUserId ? { user_id: targetUserId } : {}),
      ...detail,
    },
    (error) => request.log.error({ err: error }, 'admin audit log failed'),
  );
  try {
    await backend.rpc(
      'admin_audit_console_action',
      { p_action: `console:${action}`, p_target_user_id: targetUserId, p_detail: detail },
      { serviceRole: true },
    );
  } catch (error) {
    request.log.error({ err: error, action }, 'the database audit log did not take the console action');
  }
}

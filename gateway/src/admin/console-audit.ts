// Every action of the console lands once in the database's audit log (public.admin_audit_log), with
// the admin who took it, and once in the file mirror (audit-log.ts):
// - What the database does itself, it records itself, in the action's own transaction (a void, a
//   role granted or revoked, a report resolved, an account deleted: docs/database.md#moderation-audit-log).
//   Each call the console makes for a signed-in admin carries her subject in
//   `x-studyhall-console-admin`, which the database keeps on every row the service role writes (the
//   backend proxy names an admin's /__backend requests the same way and drops the header from
//   everything else, so only the gateway names anyone). The console mirrors such an action to the
//   file only: `mirrorConsoleAction`.
// - What happens outside the database (a ban or a reset link through the auth API, a cleanup
//   through the Storage API, SQL through the Management API, a sign-in) the console appends with
//   public.admin_audit_console_action, and mirrors: `recordConsoleAction`.
// A failure to record is logged, never thrown: the action has happened by then.
import type { FastifyRequest } from 'fastify';
import type { BackendClient } from '../backend/backend-client.ts';
import type { AdminContext } from './admin-context.ts';

export const CONSOLE_ADMIN_HEADER = 'x-studyhall-console-admin';

/** Actions the database records itself, as its rows name them (a resolution adds `:<resolution>`). */
export type RecordedAction =
  'void_session' | 'grant_role' | 'revoke_role' | 'delete_account' | `resolve_report:${string}`;

/** Actions outside the database, recorded as `console:<action>`. */
export type ConsoleAction =
  | 'login'
  | 'logout'
  | 'ban_user'
  | 'unban_user'
  | 'mail_reset_link'
  | 'show_reset_link'
  | 'confirm_admin_email'
  | 'apply_sql'
  | 'repair_backup'
  | 'restore_backup'
  | 'storage_cleanup';

interface ActionEntry {
  /** Whose session acted; the request's session when not given (a login names its new session). */
  subject?: string;
  targetUserId?: string | null;
  detail?: Record<string, unknown>;
}

function subjectOf(request: FastifyRequest, entry: ActionEntry = {}): string {
  return entry.subject ?? request.adminSession?.subject ?? 'unknown';
}

/** A backend client whose calls name the console's admin (`subject`, or this request's session). */
export function consoleBackend(context: AdminContext, request: FastifyRequest, subject?: string): BackendClient {
  return context.backend.forRoute().withHeaders({ [CONSOLE_ADMIN_HEADER]: subject ?? subjectOf(request) });
}

/** Appends the action to the file mirror only: the database wrote its row in the action's transaction. */
export async function mirrorConsoleAction(
  context: AdminContext,
  request: FastifyRequest,
  action: RecordedAction | ConsoleAction,
  entry: ActionEntry = {},
): Promise<void> {
  await context.audit.record(
    {
      subject: subjectOf(request, entry),
      action,
      ...(entry.targetUserId ? { user_id: entry.targetUserId } : {}),
      ...entry.detail,
    },
    (error) => request.log.error({ err: error }, 'the admin audit file could not take the console action'),
  );
}

/** Records an action the database cannot see, in the database and the file mirror. */
export async function recordConsoleAction(
  context: AdminContext,
  request: FastifyRequest,
  action: ConsoleAction,
  entry: ActionEntry = {},
): Promise<void> {
  await mirrorConsoleAction(context, request, action, entry);
  try {
    await consoleBackend(context, request, subjectOf(request, entry)).rpc(
      'admin_audit_console_action',
      { p_action: `console:${action}`, p_target_user_id: entry.targetUserId ?? null, p_detail: entry.detail ?? {} },
      { serviceRole: true },
    );
  } catch (error) {
    request.log.error({ err: error, action }, 'the database audit log did not take the console action');
  }
}

// Reads public.admin_audit_log for the console, newest first, naming each account: the actor (a
// signed-in admin or owner by her e-mail; the console by the admin it named, `secret` for the
// ADMIN_SECRET login) and the account acted on.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { listAccounts } from '../backend-users.ts';

const auditRow = z.object({
  id: z.number(),
  at: z.string(),
  actor_id: z.string().nullable(),
  actor_role: z.string(),
  action: z.string(),
  target_user_id: z.string().nullable(),
  target_table: z.string().nullable(),
  target_id: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});

export interface AuditRow extends z.infer<typeof auditRow> {
  actor_name: string;
  target_name: string | null;
}

/** `user:<id>:<email>` → the e-mail; `secret` → "the ADMIN_SECRET login". */
function consoleAdminName(subject: unknown): string | undefined {
  if (typeof subject !== 'string') return undefined;
  if (subject === 'secret') return 'the ADMIN_SECRET login';
  return /^user:[0-9a-f-]{36}:(.+)$/.exec(subject)?.[1] ?? subject;
}

export async function readAuditRows(backend: BackendClient, limit: number): Promise<AuditRow[]> {
  let rows: unknown[];
  try {
    rows = await backend.select(`admin_audit_log?select=*&order=at.desc,id.desc&limit=${limit}`, {
      serviceRole: true,
    });
  } catch (error) {
    if (error instanceof BackendError && (error.code === '42P01' || error.code === 'PGRST205'))
      throw new GatewayError(
        502,
        'patch_not_applied',
        'The project has no public.admin_audit_log: apply community-patch-v6.sql (see /__admin/patch).',
      );
    throw error;
  }
  const parsed = z.array(auditRow).parse(rows);
  const emails = new Map((await listAccounts(backend)).map((account) => [account.id, account.email]));
  const nameOf = (id: string) => emails.get(id) ?? `a deleted account (${id.slice(0, 8)})`;
  return parsed.map((row) => ({
    ...row,
    actor_name: row.actor_id
      ? nameOf(row.actor_id)
      : (consoleAdminName(row.detail.console_admin) ?? 'the service role'),
    target_name: row.target_user_id ? nameOf(row.target_user_id) : null,
  }));
}

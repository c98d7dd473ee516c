// Reads public.admin_audit_log for the console a page at a time through public.admin_audit_entries
// (newest first, keyset paged after an entry id, filtered by action and person), naming each
// account: the actor (a signed-in admin or owner by her e-mail; for the console's rows, the admin
// it named, "the owner (admin secret)" for the ADMIN_SECRET login) and the account acted on.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { listAccounts } from '../backend-users.ts';
import { subjectAccountId, subjectName } from '../people.ts';

/** Entries a page shows. */
export const AUDIT_PAGE_SIZE = 100;

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

/** An entry as the console answers it: the row with its actor and target named. */
export const auditEntry = auditRow.extend({
  actor_name: z.string(),
  actor_person: z
    .string()
    .nullable()
    .describe('Whom a click on the actor filters by: an account id, `secret` (the owner), or null.'),
  target_name: z.string().nullable(),
});
export type AuditRow = z.infer<typeof auditEntry>;

export interface AuditQuery {
  /** An action, or a family of them (`resolve_report`, `console`). */
  action?: string | undefined;
  /** An account id, or `secret` for the owner. */
  person?: string | undefined;
  /** Only entries older than this one. */
  before?: number | undefined;
}

export interface AuditPage {
  entries: AuditRow[];
  /** The id to page on from for older entries, or null on the last page. */
  olderBefore: number | null;
}

function patchMissing(error: unknown): never {
  if (
    error instanceof BackendError &&
    (error.code === '42P01' || error.code === 'PGRST205' || error.code === 'PGRST202' || error.code === '42883')
  )
    throw new GatewayError(
      502,
      'patch_not_applied',
      'The project has no public.admin_audit_entries(): apply community-patch-v6.sql (see /__admin/patch).',
    );
  throw error;
}

export async function readAuditPage(backend: BackendClient, query: AuditQuery): Promise<AuditPage> {
  let rows: unknown;
  try {
    // One more than a page: whether older entries exist, without counting them all.
    rows = await backend.rpc(
      'admin_audit_entries',
      {
        p_action: query.action ?? null,
        p_person: query.person ?? null,
        p_before: query.before ?? null,
        p_limit: AUDIT_PAGE_SIZE + 1,
      },
      { serviceRole: true },
    );
  } catch (error) {
    patchMissing(error);
  }
  const parsed = z.array(auditRow).parse(rows);
  const shown = parsed.slice(0, AUDIT_PAGE_SIZE);
  const emails = new Map((await listAccounts(backend)).map((account) => [account.id, account.email]));
  const nameOf = (id: string) => emails.get(id) ?? `a deleted account (${id.slice(0, 8)})`;
  return {
    entries: shown.map((row) => {
      const consoleAdmin = typeof row.detail.console_admin === 'string' ? row.detail.console_admin : undefined;
      return {
        ...row,
        actor_name: row.actor_id ? nameOf(row.actor_id) : consoleAdmin ? subjectName(consoleAdmin) : 'the service role',
        actor_person: row.actor_id ?? (consoleAdmin ? (subjectAccountId(consoleAdmin) ?? consoleAdmin) : null),
        target_name: row.target_user_id ? nameOf(row.target_user_id) : null,
      };
    }),
    olderBefore: parsed.length > AUDIT_PAGE_SIZE ? (shown[shown.length - 1]?.id ?? null) : null,
  };
}

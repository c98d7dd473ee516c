// Repairing a user's backup: the winner's content becomes the user's current backup, and the
// backup it replaces is archived (public.admin_replace_current_backup, one transaction), so the
// repair can be undone with public.admin_restore_archived_backup. A dry run computes exactly the
// same plan and writes nothing.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';
import { readBackupCandidates, type BackupCandidate } from './backup-candidates.ts';

export const RESTORE_PATH = '/__admin/sync/restore-archived-backup';

export interface RepairChange {
  action: 'archive' | 'write';
  description: string;
  backup: Pick<BackupCandidate, 'kind' | 'id' | 'richness' | 'created_at'>;
}

export interface RepairResult {
  dry_run: boolean;
  user_id: string;
  changes: RepairChange[];
  explanation: string;
  archived_backup_id: string | null;
  new_backup_id: string | null;
  restore: { method: 'POST'; path: string; body: { archive_id: string }; text: string } | null;
}

const brief = (candidate: BackupCandidate) => ({
  kind: candidate.kind,
  id: candidate.id,
  richness: candidate.richness,
  created_at: candidate.created_at,
});

async function winnerPayload(
  backend: BackendClient,
  userId: string,
  winner: BackupCandidate,
): Promise<{ payload: Record<string, unknown>; appVersion: string | null }> {
  if (winner.kind === 'row') {
    const rows = await backend.select(
      `user_backups?select=payload,app_version&id=eq.${encodeURIComponent(winner.id)}&user_id=eq.${encodeURIComponent(userId)}`,
      { serviceRole: true },
    );
    const [row] = z
      .array(z.object({ payload: z.record(z.string(), z.unknown()), app_version: z.string().nullable() }))
      .parse(rows);
    if (!row)
      throw new GatewayError(
        409,
        'backup_changed',
        'The winning backup disappeared since the page was read; look at the user again.',
      );
    return { payload: row.payload, appVersion: row.app_version };
  }
  const { body } = await backend.request(
    `/storage/v1/object/backups/${winner.id.split('/').map(encodeURIComponent).join('/')}`,
    { credential: { serviceRole: true } },
  );
  return { payload: z.record(z.string(), z.unknown()).parse(body), appVersion: null };
}

const replaced = z.object({
  new_backup_id: z.string(),
  archived_backup_id: z.string().nullable(),
  replaced_backup_id: z.string().nullable(),
});

export async function repairUserBackup(
  backend: BackendClient,
  options: { userId: string; dryRun: boolean; subject: string },
): Promise<RepairResult> {
  const [user] = await readBackupCandidates(backend, { userId: options.userId });
  const base = {
    dry_run: options.dryRun,
    user_id: options.userId,
    archived_backup_id: null,
    new_backup_id: null,
    restore: null,
  };
  if (!user) return { ...base, changes: [], explanation: 'This user has no backups.' };
  const { winner, current } = user;
  if (!user.repair_needed || !winner) return { ...base, changes: [], explanation: user.explanation };

  const changes: RepairChange[] = [
    {
      action: 'write',
      description: `Write the content of ${winner.kind} ${winner.id} (richness ${winner.richness}) as a new backup (source "restore"); it becomes what /__auth/backup/latest and /__auth/backup/best return.`,
      backup: brief(winner),
    },
    ...(current
      ? [
          {
            action: 'archive' as const,
            description: `Move the current backup, row ${current.id} (richness ${current.richness}), into the archive, from where it can be restored.`,
            backup: brief(current),
          },
        ]
      : []),
  ];
  if (options.dryRun) return { ...base, changes, explanation: user.explanation };

  const { payload, appVersion } = await winnerPayload(backend, options.userId, winner);
  let result: z.infer<typeof replaced>;
  try {
    result = replaced.parse(
      await backend.rpc(
        'admin_replace_current_backup',
        {
          p_user_id: options.userId,
          p_expected_current: current?.id ?? null,
          p_payload: payload,
          p_app_version: appVersion,
          p_reason: `admin repair: ${winner.kind} ${winner.id} (richness ${winner.richness}) made current`.slice(
            0,
            500,
          ),
          p_archived_by: options.subject.slice(0, 320),
        },
        { serviceRole: true },
      ),
    );
  } catch (error) {
    if (error instanceof BackendError && error.message === 'backup_changed') {
      throw new GatewayError(
        409,
        'backup_changed',
        'The current backup changed while the repair was prepared; nothing was written. Look at the user again.',
      );
    }
    throw error;
  }
  const archiveId = result.archived_backup_id;
  return {
    ...base,
    changes,
    explanation: user.explanation,
    archived_backup_id: archiveId,
    new_backup_id: result.new_backup_id,
    restore: archiveId
      ? {
          method: 'POST',
          path: RESTORE_PATH,
          body: { archive_id: archiveId },
          text: `To undo, POST ${RESTORE_PATH} {"archive_id": "${archiveId}"} (or use Restore on the sync page): the archived backup returns with its id and date, and the backup this repair wrote is removed.`,
        }
      : null,
  };
}

export async function restoreArchivedBackup(
  backend: BackendClient,
  archiveId: string,
): Promise<{ restored_backup_id: string; removed_backup_id: string | null }> {
  try {
    return z
      .object({ restored_backup_id: z.string(), removed_backup_id: z.string().nullable() })
      .parse(await backend.rpc('admin_restore_archived_backup', { p_archive_id: archiveId }, { serviceRole: true }));
  } catch (error) {
    if (error instanceof BackendError && error.message === 'archive_not_found')
      throw new GatewayError(
        404,
        'archive_not_found',
        'No archived backup has that id (it may have been restored already).',
      );
    if (error instanceof BackendError && error.message === 'already_restored')
      throw new GatewayError(409, 'already_restored', 'A backup with that id exists again; nothing was changed.');
    throw error;
  }
}

export const archivedRow = z.object({
  id: z.string(),
  backup_id: z.string(),
  user_id: z.string(),
  source: z.string(),
  backup_created_at: z.string(),
  replaced_by: z.string().nullable(),
  reason: z.string(),
  archived_by: z.string(),
  archived_at: z.string(),
});
export type ArchivedBackup = z.infer<typeof archivedRow>;

export async function listArchivedBackups(backend: BackendClient): Promise<ArchivedBackup[]> {
  try {
    return z
      .array(archivedRow)
      .parse(
        await backend.select(
          'user_backup_archive?select=id,backup_id,user_id,source,backup_created_at,replaced_by,reason,archived_by,archived_at&order=archived_at.desc&limit=200',
          { serviceRole: true },
        ),
      );
  } catch (error) {
    if (error instanceof BackendError && (error.code === 'PGRST205' || error.code === '42P01')) return [];
    throw error;
  }
}

// Restoring: the backend's best backup, or a file; both are validated before anything changes.
import { ApiError, requestJson } from '../../lib/api.ts';
import { parseBackup } from '../../lib/backup-import.ts';
import type { BackupPayload } from '../../lib/backup-payload.ts';
import { requireToken } from '../../state/auth.ts';
import { replaceAllData } from '../../state/data.ts';
import { pullHistory } from '../../state/history.ts';

/** A backup may be older than the backend's history: what it lacks comes back from the backend. */
async function replaceThenPull(payload: BackupPayload): Promise<void> {
  await replaceAllData(payload);
  await pullHistory().catch(() => undefined);
}

export async function restoreBestBackup(): Promise<BackupPayload> {
  const token = await requireToken();
  const answer = await requestJson<{ payload: Record<string, unknown> }>('/__auth/restore-best-backup', {
    token,
    method: 'POST',
  });
  const parsed = parseBackup(answer.payload);
  if (!parsed.ok)
    throw new ApiError(422, 'backup_unreadable', `The stored backup cannot be read: ${parsed.problems.join('; ')}.`);
  await replaceThenPull(parsed.payload);
  return parsed.payload;
}

/** Records an imported file as a backup on the server, then replaces the local data with it. */
export async function importBackup(payload: BackupPayload): Promise<void> {
  const token = await requireToken();
  await requestJson('/__auth/import', { token, body: { payload, app_version: null } });
  await replaceThenPull(payload);
}

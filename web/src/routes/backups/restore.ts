// Restoring: a stored backup the student chose, or a file, replacing the device's data; or a stored
// backup's records the device lacks, added (the restore offer). Each is validated before anything
// changes.
import { ApiError, requestJson } from '../../lib/api.ts';
import { parseBackup } from '../../lib/backup-import.ts';
import { backupAdditions } from '../../lib/backup-offer.ts';
import type { BackupPayload } from '../../lib/backup-payload.ts';
import { requireToken } from '../../state/auth.ts';
import { addRecords, replaceAllData } from '../../state/data.ts';
import { pullHistory } from '../../state/history.ts';
import { sessions, subjects, tasks } from '../../state/signals.ts';

/** A backup may be older than the backend's history: what it lacks comes back from the backend. */
async function replaceThenPull(payload: BackupPayload): Promise<void> {
  await replaceAllData(payload);
  await pullHistory().catch(() => undefined);
}

/** Replaces the device's data with a stored backup the student chose (its payload as stored). */
export async function restoreStoredBackup(stored: Record<string, unknown>): Promise<BackupPayload> {
  const parsed = parseBackup(stored);
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

/**
 * Adds what a stored backup holds and this device lacks (the history was pulled first, so that is
 * what the backend never received); nothing on the device is replaced. The added records reach
 * the backend through the outbox.
 */
export async function addFromBackup(stored: Record<string, unknown>): Promise<{ added: number }> {
  const parsed = parseBackup(stored);
  if (!parsed.ok)
    throw new ApiError(422, 'backup_unreadable', `The stored backup cannot be read: ${parsed.problems.join('; ')}.`);
  const additions = backupAdditions(parsed.payload as unknown as Record<string, unknown>, {
    subjects: subjects.value,
    tasks: tasks.value,
    sessions: sessions.value,
  });
  await addRecords(additions);
  await pullHistory().catch(() => undefined);
  return { added: additions.subjects.length + additions.tasks.length + additions.sessions.length };
}

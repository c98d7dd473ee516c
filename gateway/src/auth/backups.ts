// Backups through the data API with the caller's token (owner-only RLS decides). "Best" is the
// richest backup, then the newest: richness is defined once, in SQL (public.backup_richness, a
// generated column on user_backups), and the gateway only orders by it.
import { z } from 'zod';
import { backupSummary, backupWithPayload } from '#contracts/auth-answers.ts';
import type { BackendClient } from '../backend/backend-client.ts';
import type { Caller } from './bearer.ts';

export const BACKUP_SUMMARY_COLUMNS = 'id,source,app_version,richness,size_bytes,created_at';
export type BackupSource = 'manual' | 'auto' | 'snapshot' | 'import' | 'restore';

export type BackupSummary = z.infer<typeof backupSummary>;
export type Backup = z.infer<typeof backupWithPayload>;

const ORDER = { best: 'richness.desc,created_at.desc', latest: 'created_at.desc' } as const;

export async function findBackup(
  backend: BackendClient,
  caller: Caller,
  which: keyof typeof ORDER,
): Promise<Backup | null> {
  const rows = await backend.select(
    `user_backups?select=${BACKUP_SUMMARY_COLUMNS},payload&user_id=eq.${caller.userId}&order=${ORDER[which]}&limit=1`,
    { userToken: caller.token },
  );
  return rows.length ? backupWithPayload.parse(rows[0]) : null;
}

export async function latestBackupSummary(backend: BackendClient, caller: Caller): Promise<BackupSummary | null> {
  const rows = await backend.select(
    `user_backups?select=${BACKUP_SUMMARY_COLUMNS}&user_id=eq.${caller.userId}&order=created_at.desc&limit=1`,
    { userToken: caller.token },
  );
  return rows.length ? backupSummary.parse(rows[0]) : null;
}

export async function storeBackup(
  backend: BackendClient,
  caller: Caller,
  backup: { payload: Record<string, unknown>; source: BackupSource; appVersion: string | null },
): Promise<BackupSummary> {
  const { body } = await backend.request(`/rest/v1/user_backups?select=${BACKUP_SUMMARY_COLUMNS}`, {
    credential: { userToken: caller.token },
    headers: { prefer: 'return=representation' },
    body: { user_id: caller.userId, source: backup.source, payload: backup.payload, app_version: backup.appVersion },
  });
  return backupSummary.parse(z.array(z.unknown()).length(1).parse(body)[0]);
}

/** Uploads a snapshot file into the caller's folder of the private `backups` bucket. */
export async function uploadSnapshotObject(
  backend: BackendClient,
  caller: Caller,
  payload: Record<string, unknown>,
): Promise<string> {
  const objectPath = `${caller.userId}/snapshots/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await backend.request(`/storage/v1/object/backups/${objectPath}`, {
    credential: { userToken: caller.token },
    rawBody: Buffer.from(JSON.stringify(payload)),
    contentType: 'application/json',
    headers: { 'x-upsert': 'true' },
  });
  return `backups/${objectPath}`;
}

/** A snapshot is kept twice: as a file in the caller's `backups` folder and as a backup row. */
export async function storeSnapshot(
  backend: BackendClient,
  caller: Caller,
  payload: Record<string, unknown>,
  appVersion: string | null,
) {
  const object = await uploadSnapshotObject(backend, caller, payload);
  const backup = await storeBackup(backend, caller, { payload, source: 'snapshot', appVersion });
  return { backup, object };
}

/**
 * Hands the best backup back to the app and records the restore as a new (newest) backup, so
 * "latest" afterwards is what the app now holds. Null when the caller has no backup.
 */
export async function restoreBestBackup(backend: BackendClient, caller: Caller) {
  const best = await findBackup(backend, caller, 'best');
  if (!best) return null;
  const recorded = await storeBackup(backend, caller, {
    payload: best.payload,
    source: 'restore',
    appVersion: best.app_version,
  });
  const { payload, ...restoredFrom } = best;
  return { restored_from: restoredFrom, backup: recorded, payload };
}

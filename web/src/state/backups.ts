// Cloud snapshots of the device's data: automatic after changes (a few seconds after the last
// change, and at most every five minutes, except right after a finished session), or on demand. Each one is a full payload stored by
// /__auth/snapshot; the best one can be restored on another device.
import { effect, signal } from '@preact/signals';
import { requestJson } from '../lib/api.ts';
import { buildPayload, type BackupPayload } from '../lib/backup-payload.ts';
import { readKv, writeKv } from '../lib/db.ts';
import { requireToken } from './auth.ts';
import { dataVersion, db, serverReachable, sessions, settings, subjects, tasks } from './signals.ts';

export const QUIET_MS = 3000;
export const MIN_INTERVAL_MS = 5 * 60_000;

export const lastSnapshotAt = signal<number | null>(null);
export const snapshotState = signal<'idle' | 'saving' | 'failed'>('idle');

export function currentPayload(): BackupPayload {
  return buildPayload({
    subjects: subjects.value,
    tasks: tasks.value,
    sessions: sessions.value,
    settings: settings.value,
  });
}

export async function snapshotNow(): Promise<void> {
  snapshotState.value = 'saving';
  try {
    const token = await requireToken();
    await requestJson('/__auth/snapshot', { token, body: { payload: currentPayload(), app_version: null } });
    const now = Date.now();
    lastSnapshotAt.value = now;
    snapshotState.value = 'idle';
    serverReachable.value = true;
    if (db.value) await writeKv(db.value, 'lastSnapshotAt', now);
  } catch (error) {
    snapshotState.value = 'failed';
    throw error;
  }
}

let timer: ReturnType<typeof setTimeout> | undefined;
let stopWatching: (() => void) | undefined;

/** Watches local changes and schedules snapshots; returns when the first value is read. */
export async function startAutoBackup(): Promise<void> {
  stopAutoBackup();
  if (db.value) lastSnapshotAt.value = (await readKv(db.value, 'lastSnapshotAt')) ?? null;
  let first = true;
  stopWatching = effect(() => {
    void dataVersion.value;
    if (first) {
      first = false;
      return;
    }
    clearTimeout(timer);
    const earliest = (lastSnapshotAt.peek() ?? 0) + MIN_INTERVAL_MS;
    const delay = Math.max(QUIET_MS, earliest - Date.now());
    timer = setTimeout(() => void snapshotNow().catch(() => undefined), delay);
  });
}

/** A finished session is worth a backup now, whatever the five-minute spacing says. */
export function snapshotSoon(): void {
  if (!stopWatching) return; // automatic backups are not running (no account open)
  clearTimeout(timer);
  timer = setTimeout(() => void snapshotNow().catch(() => undefined), QUIET_MS);
}

export function stopAutoBackup(): void {
  clearTimeout(timer);
  stopWatching?.();
  stopWatching = undefined;
  lastSnapshotAt.value = null;
  snapshotState.value = 'idle';
}

// On a device that held no data when it opened, after the backend's history was pulled: the
// account's newest backup, and the one holding the most records when that is another, each with
// what it holds and what it would add here. Offered only when one of them adds something this
// device lacks (records the backend never received); adding replaces nothing.
import { signal } from '@preact/signals';
import { clientConfig } from '../lib/client-config.ts';
import { backupAdditions } from '../lib/backup-offer.ts';
import { summarizePayload, type BackupSummaryCounts } from '../lib/backup-payload.ts';
import { BackupReader, type BackupChoice, type StoredBackup } from '../lib/backup-reader.ts';
import { writeKv } from '../lib/db.ts';
import { accessToken } from './auth.ts';
import { account, db, sessions, subjects, tasks } from './signals.ts';

export interface OfferedBackup {
  id: string;
  /** The newest backup, or the one holding the most records. */
  role: 'newest' | 'richest';
  createdAt: string;
  source: string;
  counts: BackupSummaryCounts;
  /** How many of its records this device lacks, by kind. */
  adds: { subjects: number; tasks: number; sessions: number };
  payload: Record<string, unknown>;
}

const reader = new BackupReader({
  baseUrl: '/__backend',
  anonKey: async () => (await clientConfig()).anon_key,
  token: (refresh) => accessToken(refresh),
  userId: () => account.value?.userId ?? null,
});

const offered = signal<OfferedBackup[] | null>(null);

/** The account's newest backup and, when that is another, the one holding the most records. */
export function readBackupChoice(): Promise<BackupChoice | null> {
  return reader.choice();
}

function offerOf(backup: StoredBackup, role: OfferedBackup['role']): OfferedBackup {
  const additions = backupAdditions(backup.payload, {
    subjects: subjects.value,
    tasks: tasks.value,
    sessions: sessions.value,
  });
  return {
    id: backup.id,
    role,
    createdAt: backup.created_at,
    source: backup.source,
    counts: summarizePayload(backup.payload),
    adds: { subjects: additions.subjects.length, tasks: additions.tasks.length, sessions: additions.sessions.length },
    payload: backup.payload,
  };
}

function sum(adds: OfferedBackup['adds']): number {
  return adds.subjects + adds.tasks + adds.sessions;
}

export const restoreOffer = {
  offered,
  /** Looks for a backup with something to add; a failure (no server, no backups) offers nothing. */
  async check(): Promise<void> {
    try {
      const choice = await readBackupChoice();
      if (!choice) return;
      const offers = [
        offerOf(choice.newest, 'newest'),
        ...(choice.richest ? [offerOf(choice.richest, 'richest')] : []),
      ];
      if (offers.every((offer) => sum(offer.adds) === 0)) return;
      offered.value = offers;
    } catch {
      offered.value = null;
    }
  },
  async decline(): Promise<void> {
    offered.value = null;
    if (db.value) await writeKv(db.value, 'restoreDeclined', true);
  },
  reset(): void {
    offered.value = null;
  },
};

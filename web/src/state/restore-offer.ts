// On a device with no local data, the account's best backup is offered: what it holds is shown
// first, and nothing is replaced until the student says so.
import { signal } from '@preact/signals';
import { requestJson } from '../lib/api.ts';
import { summarizePayload, type BackupSummaryCounts } from '../lib/backup-payload.ts';
import { writeKv } from '../lib/db.ts';
import { requireToken } from './auth.ts';
import { db } from './signals.ts';

export interface OfferedBackup {
  id: string;
  createdAt: string;
  source: string;
  counts: BackupSummaryCounts;
}

const offered = signal<OfferedBackup | null>(null);

export const restoreOffer = {
  offered,
  async check(): Promise<void> {
    const token = await requireToken();
    try {
      const answer = await requestJson<{
        backup: { id: string; created_at: string; source: string; payload: Record<string, unknown> } | null;
      }>('/__auth/backup/best', { token });
      if (!answer.backup) return; // a new account: nothing to offer
      const counts = summarizePayload(answer.backup.payload);
      if (counts.subjects + counts.tasks + counts.sessions === 0) return;
      offered.value = {
        id: answer.backup.id,
        createdAt: answer.backup.created_at,
        source: answer.backup.source,
        counts,
      };
    } catch {
      offered.value = null; // no server: nothing to offer
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

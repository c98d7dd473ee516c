// The student's stored backups, read through the Data API (through /__backend, with her token:
// she reads only her own rows): the newest and the one holding the most records (the richness the
// admin console's repair also orders by), each with its payload, so the student chooses with both
// shown instead of having the richest picked for her.
import { ApiError, requestJson } from './api.ts';
import type { BackendAccess } from './backend-writer.ts';

export interface StoredBackup {
  id: string;
  created_at: string;
  source: string;
  richness: number;
  payload: Record<string, unknown>;
}

export interface BackupChoice {
  /** The newest backup; then the richest one, when that is another backup. */
  newest: StoredBackup;
  richest: StoredBackup | null;
}

/** How many of the newest backups the richest is looked for among (auto snapshots come often). */
const LOOK_BACK = 50;

export class BackupReader {
  constructor(private readonly access: BackendAccess) {}

  private async get<T>(path: string): Promise<T> {
    const headers = { apikey: await this.access.anonKey() };
    const url = `${this.access.baseUrl}${path}`;
    try {
      return await requestJson<T>(url, { token: await this.access.token(false), headers });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      return requestJson<T>(url, { token: await this.access.token(true), headers });
    }
  }

  /** Null when the account has no backup. */
  async choice(): Promise<BackupChoice | null> {
    const rows = await this.get<Omit<StoredBackup, 'payload'>[]>(
      `/rest/v1/user_backups?select=id,created_at,source,richness&order=created_at.desc,id.desc&limit=${LOOK_BACK}`,
    );
    const newest = rows[0];
    if (!newest) return null;
    const richest = rows.reduce((best, row) => (row.richness > best.richness ? row : best), newest);
    const ids = [...new Set([newest.id, richest.id])];
    const full = await this.get<StoredBackup[]>(
      `/rest/v1/user_backups?select=id,created_at,source,richness,payload&id=in.(${ids.join(',')})`,
    );
    const byId = new Map(full.map((row) => [row.id, row]));
    const newestRow = byId.get(newest.id);
    if (!newestRow) return null;
    return { newest: newestRow, richest: richest.id === newest.id ? null : (byId.get(richest.id) ?? null) };
  }
}

// Every stored backup candidate of each user, and which one wins. Candidates are the user's backup
// rows (what /__auth/backup/best reads) and the snapshot files in the user's folder of the
// `backups` bucket (what a snapshot also leaves behind). Richness always comes from the database's
// own public.backup_richness(): a row carries it as a generated column, a file's content is sent
// to the same function. The order is /__auth/backup/best's: richness first, then the newest; on a
// tie a row wins over a file (a file is normally the mirror of a row written just after it).
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import { listAccounts } from '../backend-users.ts';
import { listStoredObjects, type StoredObject } from '../storage/stored-objects.ts';

export interface BackupCandidate {
  kind: 'row' | 'file';
  /** The row's id, or the file's object name in the `backups` bucket. */
  id: string;
  source: string | null;
  app_version: string | null;
  /** null when a file could not be read as a JSON object (then it can never win). */
  richness: number | null;
  bytes: number;
  created_at: string;
  problem?: string;
}

export interface UserBackups {
  user_id: string;
  email: string | null;
  /** Best first, in the order described above. */
  candidates: BackupCandidate[];
  /** The newest row: what /__auth/backup/latest returns (the user's current backup). */
  current: BackupCandidate | null;
  /** What /__auth/backup/best returns (rows only). */
  best: BackupCandidate | null;
  /** The richest of all candidates. */
  winner: BackupCandidate | null;
  repair_needed: boolean;
  explanation: string;
}

const backupRow = z.object({
  id: z.string(),
  user_id: z.string(),
  source: z.string(),
  app_version: z.string().nullable(),
  richness: z.number(),
  size_bytes: z.number(),
  created_at: z.string(),
});

const PAGE = 1000;
const ROW_COLUMNS = 'id,user_id,source,app_version,richness,size_bytes,created_at';
const SNAPSHOT_FILE = /^([0-9a-f-]{36})\/.+\.json$/i;

export function compareCandidates(a: BackupCandidate, b: BackupCandidate): number {
  const richness = (b.richness ?? -1) - (a.richness ?? -1);
  if (richness !== 0) return richness;
  const time = Date.parse(b.created_at) - Date.parse(a.created_at);
  if (time !== 0) return time;
  return a.kind === b.kind ? 0 : a.kind === 'row' ? -1 : 1;
}

/** Newest first, as /__auth/backup/latest orders. */
function newest(rows: BackupCandidate[]): BackupCandidate | null {
  return [...rows].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0] ?? null;
}

async function readRows(backend: BackendClient, userId?: string): Promise<z.infer<typeof backupRow>[]> {
  const rows: z.infer<typeof backupRow>[] = [];
  const filter = userId ? `&user_id=eq.${encodeURIComponent(userId)}` : '';
  for (let offset = 0; ; offset += PAGE) {
    const page = z
      .array(backupRow)
      .parse(
        await backend.select(
          `user_backups?select=${ROW_COLUMNS}${filter}&order=user_id.asc,created_at.desc,id.asc&limit=${PAGE}&offset=${offset}`,
          { serviceRole: true },
        ),
      );
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

/** A file's richness by the database's own function; null (with the reason) when it is not a JSON object. */
async function fileRichness(
  backend: BackendClient,
  object: StoredObject,
): Promise<{ richness: number | null; problem?: string }> {
  try {
    const { body } = await backend.request(
      `/storage/v1/object/backups/${object.name.split('/').map(encodeURIComponent).join('/')}`,
      { credential: { serviceRole: true } },
    );
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return { richness: null, problem: 'not a JSON object' };
    const richness = z.number().parse(await backend.rpc('backup_richness', { payload: body }, { serviceRole: true }));
    return { richness };
  } catch (error) {
    return { richness: null, problem: `unreadable: ${(error as Error).message}` };
  }
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}

const short = (candidate: BackupCandidate) =>
  candidate.kind === 'row' ? `row ${candidate.id.slice(0, 8)}` : `file ${candidate.id.split('/').slice(1).join('/')}`;
const described = (candidate: BackupCandidate) =>
  `${short(candidate)} (richness ${candidate.richness}, ${candidate.created_at.slice(0, 16).replace('T', ' ')} UTC)`;

export function explain(user: Omit<UserBackups, 'explanation' | 'repair_needed'>): {
  repair_needed: boolean;
  explanation: string;
} {
  const { current, best, winner } = user;
  const rows = user.candidates.filter((item) => item.kind === 'row').length;
  if (!winner)
    return {
      repair_needed: false,
      explanation: user.candidates.length ? 'No candidate could be read.' : 'No backups.',
    };
  const parts: string[] = [];
  if (best) {
    parts.push(
      `/__auth/backup/best returns ${described(best)}: the richest of ${rows} backup row${rows === 1 ? '' : 's'}${best === current ? ' and also the newest' : ', because richness wins over recency'}.`,
    );
  } else {
    parts.push('/__auth/backup/best finds no backup row.');
  }
  if (winner.kind === 'file')
    parts.push(`The snapshot ${described(winner)} is richer than every row, and /__auth/backup/best reads only rows.`);
  if (current && current !== best)
    parts.push(`The current (newest) backup, ${described(current)}, is what /__auth/backup/latest returns.`);
  const repair = winner !== current;
  parts.push(
    repair
      ? `Repair makes the content of ${short(winner)} the current backup${current ? ` and archives ${short(current)} (it can be restored)` : ''}.`
      : 'Nothing to repair.',
  );
  return { repair_needed: repair, explanation: parts.join(' ') };
}

function assemble(userId: string, email: string | null, candidates: BackupCandidate[]): UserBackups {
  const sorted = [...candidates].sort(compareCandidates);
  const rows = sorted.filter((item) => item.kind === 'row');
  const base = {
    user_id: userId,
    email,
    candidates: sorted,
    current: newest(rows),
    best: rows[0] ?? null,
    winner: sorted.find((item) => item.richness !== null) ?? null,
  };
  return { ...base, ...explain(base) };
}

/** Every user's candidates (or one user's), with the winner and why. */
export async function readBackupCandidates(
  backend: BackendClient,
  options: { userId?: string } = {},
): Promise<UserBackups[]> {
  const [accounts, rows, objects] = await Promise.all([
    listAccounts(backend),
    readRows(backend, options.userId),
    listStoredObjects(backend, 'backups'),
  ]);
  const files = objects.filter((object) => {
    const owner = SNAPSHOT_FILE.exec(object.name)?.[1];
    return owner !== undefined && (!options.userId || owner === options.userId);
  });
  const richness = await mapLimited(files, 4, (file) => fileRichness(backend, file));
  const byUser = new Map<string, BackupCandidate[]>();
  const add = (userId: string, candidate: BackupCandidate) =>
    byUser.set(userId, [...(byUser.get(userId) ?? []), candidate]);
  for (const row of rows) {
    add(row.user_id, {
      kind: 'row',
      id: row.id,
      source: row.source,
      app_version: row.app_version,
      richness: row.richness,
      bytes: row.size_bytes,
      created_at: row.created_at,
    });
  }
  files.forEach((file, index) => {
    const measured = richness[index] ?? { richness: null };
    add(SNAPSHOT_FILE.exec(file.name)?.[1] ?? '', {
      kind: 'file',
      id: file.name,
      source: 'snapshot file',
      app_version: null,
      richness: measured.richness,
      bytes: file.bytes,
      created_at: file.created_at,
      ...(measured.problem ? { problem: measured.problem } : {}),
    });
  });
  const emails = new Map(accounts.map((account) => [account.id, account.email]));
  return [...byUser.entries()]
    .map(([userId, candidates]) => assemble(userId, emails.get(userId) ?? null, candidates))
    .sort((a, b) => (a.email ?? a.user_id).localeCompare(b.email ?? b.user_id));
}

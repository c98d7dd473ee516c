// storage-api's list-v2: one page of a bucket's objects under a prefix in name order, with a
// cursor for the next page; with `with_delimiter` everything below the next `/` is one folder
// entry (`<prefix><folder>/`), listed once. The cursor is storage-api's continuation token
// (base64 of `l:<last name>` and `o:<order>` lines), so a client may keep it between calls.
import type pg from 'pg';
import { invalidRequest } from './errors.ts';
import { objectRow, type ObjectRow } from './objects.ts';

export interface ListV2Options {
  prefix: string;
  limit: number;
  cursor?: string;
  withDelimiter: boolean;
  descending: boolean;
}

export interface ListV2Object {
  id: string;
  name: string;
  key: string;
  bucket_id: string;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
}

export interface ListV2Result {
  hasNext: boolean;
  nextCursor?: string;
  nextCursorKey?: string;
  folders: { name: string; key: string }[];
  objects: ListV2Object[];
}

interface Cursor {
  startAfter: string;
  descending: boolean;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`l:${cursor.startAfter}\no:${cursor.descending ? 'desc' : 'asc'}`).toString('base64');
}

export function decodeCursor(token: string): Cursor {
  const cursor: Cursor = { startAfter: '', descending: false };
  for (const part of Buffer.from(token, 'base64').toString('utf8').split('\n')) {
    const match = /^(\S):(.*)$/s.exec(part);
    if (!match || !['l', 'o', 'c', 'a'].includes(match[1] ?? ''))
      throw invalidRequest('Invalid Parameter continuation token');
    if (match[1] === 'l') cursor.startAfter = match[2] ?? '';
    if (match[1] === 'o') cursor.descending = match[2] === 'desc';
  }
  return cursor;
}

/** The first name past every name under `folder` (which ends in `/`) in byte order. */
function pastFolder(folder: string): string {
  return `${folder.slice(0, -1)}0`;
}

const BATCH = 1000;
const COLUMNS = 'id, bucket_id, name, owner, version, metadata, created_at, updated_at, last_accessed_at';

/** Rows visible to the caller (its transaction), in byte order of the name, after a bound. */
async function batch(
  client: pg.PoolClient,
  bucketId: string,
  prefix: string,
  bound: string | undefined,
  descending: boolean,
): Promise<ObjectRow[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  const compare = descending ? '<' : '>';
  const result = await client.query(
    `select ${COLUMNS} from storage.objects
     where bucket_id = $1 and name like $2 ${bound === undefined ? '' : `and name collate "C" ${compare} $3`}
     order by name collate "C" ${descending ? 'desc' : 'asc'} limit ${BATCH}`,
    bound === undefined ? [bucketId, pattern] : [bucketId, pattern, bound],
  );
  return result.rows.map((row) => objectRow.parse(row));
}

type Entry = { folder: string } | { row: ObjectRow };

export async function listObjectsV2(
  client: pg.PoolClient,
  bucketId: string,
  options: ListV2Options,
): Promise<ListV2Result> {
  const cursor = options.cursor ? decodeCursor(options.cursor) : undefined;
  const descending = cursor ? cursor.descending : options.descending;
  const entries: Entry[] = [];
  let bound = cursor?.startAfter;
  // A cursor that names a folder resumes past everything under it.
  if (bound !== undefined && options.withDelimiter && bound.endsWith('/') && !descending) bound = pastFolder(bound);
  for (;;) {
    const rows = await batch(client, bucketId, options.prefix, bound, descending);
    let skipped = false;
    for (const row of rows) {
      bound = row.name;
      const rest = row.name.slice(options.prefix.length);
      const slash = options.withDelimiter ? rest.indexOf('/') : -1;
      if (slash < 0) {
        entries.push({ row });
        continue;
      }
      const folder = options.prefix + rest.slice(0, slash + 1);
      entries.push({ folder });
      // Skip the rest of the folder: ascending, jump past it; descending, its names sort above it.
      bound = descending ? folder : pastFolder(folder);
      skipped = true;
      break;
    }
    if (entries.length > options.limit || rows.length === 0) break;
    if (!skipped && rows.length < BATCH) break;
  }
  const hasNext = entries.length > options.limit;
  const page = entries.slice(0, options.limit);
  const result: ListV2Result = { hasNext, folders: [], objects: [] };
  for (const entry of page) {
    if ('folder' in entry) {
      result.folders.push({ name: entry.folder, key: entry.folder });
      continue;
    }
    const { row } = entry;
    result.objects.push({
      id: row.id,
      name: row.name,
      key: row.name,
      bucket_id: row.bucket_id,
      updated_at: row.updated_at?.toISOString() ?? null,
      created_at: row.created_at?.toISOString() ?? null,
      last_accessed_at: row.last_accessed_at?.toISOString() ?? null,
      metadata: row.metadata,
    });
  }
  if (hasNext) {
    const last = page.at(-1);
    const lastName = last === undefined ? '' : 'folder' in last ? last.folder : last.row.name;
    result.nextCursor = encodeCursor({ startAfter: lastName, descending });
    result.nextCursorKey = lastName;
  }
  return result;
}

// storage.objects and storage.buckets rows, read and written under the caller's role so that the
// storage policies decide, exactly as on a hosted project.
import type pg from 'pg';
import { z } from 'zod';

export const objectRow = z.object({
  id: z.string(),
  bucket_id: z.string(),
  name: z.string(),
  owner: z.string().nullable(),
  version: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.coerce.date().nullable(),
  updated_at: z.coerce.date().nullable(),
  last_accessed_at: z.coerce.date().nullable(),
});
export type ObjectRow = z.infer<typeof objectRow>;

const OBJECT_COLUMNS = 'id, bucket_id, name, owner, version, metadata, created_at, updated_at, last_accessed_at';

export interface BucketRow {
  id: string;
  public: boolean;
  /** Bytes; null means only the overall upload limit applies. */
  fileSizeLimit: number | null;
  /** `type/subtype` or `type/*`; null or empty means any type. */
  allowedMimeTypes: string[] | null;
}

const bucketRow = z.object({
  id: z.string(),
  public: z.boolean(),
  file_size_limit: z.union([z.string(), z.number()]).nullable(),
  allowed_mime_types: z.array(z.string()).nullable(),
});

export async function findBucket(client: pg.PoolClient, bucketId: string): Promise<BucketRow | undefined> {
  const result = await client.query(
    `select id, coalesce(public, false) as public, file_size_limit, allowed_mime_types
     from storage.buckets where id = $1`,
    [bucketId],
  );
  if (!result.rows[0]) return undefined;
  const row = bucketRow.parse(result.rows[0]);
  return {
    id: row.id,
    public: row.public,
    fileSizeLimit: row.file_size_limit === null ? null : Number(row.file_size_limit),
    allowedMimeTypes: row.allowed_mime_types,
  };
}

export async function listBuckets(client: pg.PoolClient): Promise<unknown[]> {
  const result = await client.query<{ file_size_limit: string | null }>(
    `select id, name, owner, public, file_size_limit, allowed_mime_types, created_at, updated_at
     from storage.buckets order by name`,
  );
  // storage-api reads int8 as a number.
  return result.rows.map((row) => ({
    ...row,
    file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit),
  }));
}

export interface NewBucket {
  id: string;
  name: string;
  public: boolean;
  owner: string | null;
  fileSizeLimit: number | null;
  allowedMimeTypes: string[] | null;
}

export async function createBucket(client: pg.PoolClient, bucket: NewBucket) {
  await client.query(
    `insert into storage.buckets (id, name, public, owner, owner_id, file_size_limit, allowed_mime_types)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [bucket.id, bucket.name, bucket.public, bucket.owner, bucket.owner, bucket.fileSizeLimit, bucket.allowedMimeTypes],
  );
}

export async function findObject(
  client: pg.PoolClient,
  bucketId: string,
  name: string,
): Promise<ObjectRow | undefined> {
  const result = await client.query(
    `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
    [bucketId, name],
  );
  return result.rows[0] ? objectRow.parse(result.rows[0]) : undefined;
}

export interface ObjectWrite {
  bucketId: string;
  name: string;
  owner: string | null;
  version: string;
  metadata: Record<string, unknown>;
  /** The uploader's own metadata; a write replaces it (none given: none kept), as storage-api does. */
  userMetadata?: Record<string, unknown> | null;
}

/** Inserts (or with upsert replaces) the row; returns its id. A taken name without upsert is 23505. */
export async function writeObject(client: pg.PoolClient, write: ObjectWrite, mode: 'insert' | 'upsert' | 'update') {
  const values = [
    write.bucketId,
    write.name,
    write.owner,
    write.version,
    write.metadata,
    write.owner,
    write.userMetadata ?? null,
  ];
  if (mode === 'update') {
    const result = await client.query<{ id: string }>(
      `update storage.objects set owner = $3, owner_id = $6, version = $4, metadata = $5, user_metadata = $7,
       updated_at = now()
       where bucket_id = $1 and name = $2 returning id`,
      values,
    );
    return result.rows[0]?.id;
  }
  const conflict =
    mode === 'upsert'
      ? `on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,
         version = excluded.version, metadata = excluded.metadata, user_metadata = excluded.user_metadata,
         updated_at = now()`
      : '';
  const result = await client.query<{ id: string }>(
    `insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata, user_metadata)
     values ($1, $2, $3, $6, $4, $5, $7) ${conflict} returning id`,
    values,
  );
  return result.rows[0]?.id;
}

/** Objects whose name starts with the prefix (LIKE metacharacters in it are matched literally). */
export async function objectsUnder(client: pg.PoolClient, bucketId: string, prefix: string): Promise<ObjectRow[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  const result = await client.query(
    `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name like $2 order by name`,
    [bucketId, pattern],
  );
  return result.rows.map((row) => objectRow.parse(row));
}

export async function deleteObjects(client: pg.PoolClient, bucketId: string, names: string[]): Promise<ObjectRow[]> {
  const result = await client.query(
    `delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning ${OBJECT_COLUMNS}`,
    [bucketId, names],
  );
  return result.rows.map((row) => objectRow.parse(row));
}

export interface BucketChanges {
  public?: boolean;
  fileSizeLimit?: number | null;
  allowedMimeTypes?: string[] | null;
}

/** storage-api's updateBucket under the caller's role: false when no row was updated (none, or RLS). */
export async function updateBucket(client: pg.PoolClient, bucketId: string, changes: BucketChanges): Promise<boolean> {
  const sets: string[] = [];
  const values: unknown[] = [bucketId];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (changes.public !== undefined) set('public', changes.public);
  if (changes.fileSizeLimit !== undefined) set('file_size_limit', changes.fileSizeLimit);
  if (changes.allowedMimeTypes !== undefined) set('allowed_mime_types', changes.allowedMimeTypes);
  const result = await client.query(
    `update storage.buckets set ${[...sets, 'updated_at = now()'].join(', ')} where id = $1`,
    values,
  );
  return (result.rowCount ?? 0) > 0;
}

/** Whether the bucket holds any object at all (asked as the owner: RLS must not hide one). */
export async function bucketHasObjects(client: pg.PoolClient, bucketId: string): Promise<boolean> {
  const result = await client.query('select 1 from storage.objects where bucket_id = $1 limit 1', [bucketId]);
  return result.rows.length > 0;
}

export async function deleteBucket(client: pg.PoolClient, bucketId: string): Promise<boolean> {
  const result = await client.query('delete from storage.buckets where id = $1', [bucketId]);
  return (result.rowCount ?? 0) > 0;
}

/** Every object of a bucket the caller may delete, deleted; the rows come back for their bytes. */
/** How many of the bucket's objects the caller can see. */
export async function countObjects(client: pg.PoolClient, bucketId: string): Promise<number> {
  const result = await client.query<{ count: number }>(
    'select count(*)::int as count from storage.objects where bucket_id = $1',
    [bucketId],
  );
  return result.rows[0]?.count ?? 0;
}

export async function deleteAllObjects(client: pg.PoolClient, bucketId: string): Promise<ObjectRow[]> {
  const result = await client.query(`delete from storage.objects where bucket_id = $1 returning ${OBJECT_COLUMNS}`, [
    bucketId,
  ]);
  return result.rows.map((row) => objectRow.parse(row));
}

export interface ObjectMove {
  from: { bucket: string; name: string };
  to: { bucket: string; name: string };
  owner: string | null;
  version: string;
}

/**
 * Renames the row under the caller's role, so the update policy decides both ends (USING on the
 * source, WITH CHECK on the destination), as storage-api's move tests it. A taken destination is
 * 23505; an invisible or missing source updates nothing (undefined).
 */
export async function moveObjectRow(client: pg.PoolClient, move: ObjectMove): Promise<ObjectRow | undefined> {
  const result = await client.query(
    `update storage.objects set bucket_id = $3, name = $4, owner = coalesce($5::text::uuid, owner),
       owner_id = coalesce($5::text, owner_id), version = $6, updated_at = now()
     where bucket_id = $1 and name = $2 returning ${OBJECT_COLUMNS}`,
    [move.from.bucket, move.from.name, move.to.bucket, move.to.name, move.owner, move.version],
  );
  return result.rows[0] ? objectRow.parse(result.rows[0]) : undefined;
}

export function rowOf(value: unknown): ObjectRow {
  return objectRow.parse(value);
}

export { OBJECT_COLUMNS };

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
}

export async function findBucket(client: pg.PoolClient, bucketId: string): Promise<BucketRow | undefined> {
  const result = await client.query<BucketRow>('select id, coalesce(public, false) as public from storage.buckets where id = $1', [
    bucketId,
  ]);
  return result.rows[0];
}

export async function listBuckets(client: pg.PoolClient): Promise<unknown[]> {
  const result = await client.query(
    `select id, name, owner, public, file_size_limit, allowed_mime_types, created_at, updated_at
     from storage.buckets order by name`,
  );
  return result.rows;
}

export async function createBucket(client: pg.PoolClient, bucket: { id: string; name: string; public: boolean; owner: string | null }) {
  await client.query('insert into storage.buckets (id, name, public, owner, owner_id) values ($1, $2, $3, $4, $5)', [
    bucket.id,
    bucket.name,
    bucket.public,
    bucket.owner,
    bucket.owner,
  ]);
}

export async function findObject(client: pg.PoolClient, bucketId: string, name: string): Promise<ObjectRow | undefined> {
  const result = await client.query(`select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`, [
    bucketId,
    name,
  ]);
  return result.rows[0] ? objectRow.parse(result.rows[0]) : undefined;
}

export interface ObjectWrite {
  bucketId: string;
  name: string;
  owner: string | null;
  version: string;
  metadata: Record<string, unknown>;
}

/** Inserts (or with upsert replaces) the row; returns its id. A taken name without upsert is 23505. */
export async function writeObject(client: pg.PoolClient, write: ObjectWrite, mode: 'insert' | 'upsert' | 'update') {
  const values = [write.bucketId, write.name, write.owner, write.version, write.metadata, write.owner];
  if (mode === 'update') {
    const result = await client.query<{ id: string }>(
      `update storage.objects set owner = $3, owner_id = $6, version = $4, metadata = $5, updated_at = now()
       where bucket_id = $1 and name = $2 returning id`,
      values,
    );
    return result.rows[0]?.id;
  }
  const conflict = mode === 'upsert'
    ? `on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,
         version = excluded.version, metadata = excluded.metadata, updated_at = now()`
    : '';
  const result = await client.query<{ id: string }>(
    `insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata)
     values ($1, $2, $3, $6, $4, $5) ${conflict} returning id`,
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

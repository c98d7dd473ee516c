// move, copy, info and list-v2 as storage-api serves them, under the caller's role: a move renames
// the row (the update policy decides the source and the destination), a copy reads the source
// (select) and inserts the destination (insert; with `x-upsert`, replaces it), info reads the row
// (public buckets: anyone with the key), list-v2 lists what the caller may read.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  addressOf,
  asCaller,
  asOwnerReading,
  bucketParams,
  callerOf,
  MAX_NAME_LENGTH,
  objectHeaders,
  parse,
  readJson,
  type StorageContext,
} from './context.ts';
import { bucketNotFound, invalidRequest, objectNotFound } from './errors.ts';
import { listObjectsV2 } from './list-v2.ts';
import { findBucket, findObject, moveObjectRow, writeObject, type ObjectRow } from './objects.ts';
import { uploadMode, wordBucketAddress, wordBucketUpload, type ObjectOperations } from './object-routes.ts';

const key = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .refine((name) => !name.endsWith('/'), 'Invalid key');
const transferBody = z.object({
  bucketId: z.string().min(1),
  sourceKey: key,
  destinationKey: key,
  destinationBucket: z.string().min(1).nullish(),
  copyMetadata: z.boolean().optional(),
  metadata: z.object({ cacheControl: z.string().optional(), mimetype: z.string().optional() }).optional(),
});
const listV2Body = z.object({
  prefix: z.string().default(''),
  limit: z.number().int().min(1).max(1000).default(1000),
  cursor: z.string().optional(),
  with_delimiter: z.boolean().default(false),
  sortBy: z
    .object({ column: z.literal('name').default('name'), order: z.enum(['asc', 'desc']).default('asc') })
    .default({ column: 'name', order: 'asc' }),
});

/** storage-api's info body (storage-js camelizes it). */
function infoOf(row: ObjectRow & { user_metadata?: unknown }) {
  const metadata = row.metadata ?? {};
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    bucket_id: row.bucket_id,
    size: metadata.size ?? null,
    content_type: metadata.mimetype ?? null,
    cache_control: metadata.cacheControl ?? null,
    etag: metadata.eTag ?? null,
    // storage-api answers an object uploaded without metadata with an empty object.
    metadata: row.user_metadata ?? {},
    last_modified: row.updated_at?.toISOString() ?? null,
    created_at: row.created_at?.toISOString() ?? null,
  };
}

export function operationRoutes(app: FastifyInstance, context: StorageContext, operations: ObjectOperations): void {
  const { files } = context;

  app.post('/object/move', async (request) => {
    const verified = await callerOf(context, request);
    const body = parse(transferBody, await readJson(request));
    const to = { bucket: body.destinationBucket ?? body.bucketId, name: body.destinationKey };
    const from = { bucket: body.bucketId, name: body.sourceKey };
    const version = randomUUID();
    const { before, after } = await asCaller(context, request, verified, async (client) => {
      const source = await findObject(client, from.bucket, from.name);
      if (!source) throw objectNotFound();
      if (from.bucket === to.bucket && from.name === to.name) return { before: source, after: source };
      const moved = await moveObjectRow(client, { from, to, owner: verified.claims.sub ?? null, version });
      if (!moved) throw objectNotFound();
      // The bytes are in place under the new version before the rename commits.
      await files.copy(source.bucket_id, source.id, source.version ?? '', to.bucket, moved.id, version);
      return { before: source, after: moved };
    });
    if (before.version !== after.version) await files.remove(before.bucket_id, before.id, before.version ?? '');
    return { message: 'Successfully moved', Id: after.id, Key: after.name };
  });

  app.post('/object/copy', async (request) => {
    const verified = await callerOf(context, request);
    const body = parse(transferBody, await readJson(request));
    const to = { bucket: body.destinationBucket ?? body.bucketId, name: body.destinationKey };
    const upsert = request.headers['x-upsert'] === 'true';
    const version = randomUUID();
    const owner = verified.claims.sub ?? null;
    const { copied, replaced } = await asCaller(context, request, verified, async (client) => {
      const source = await findObject(client, body.bucketId, body.sourceKey);
      if (!source) throw objectNotFound();
      if (!(await findBucket(client, to.bucket))) throw bucketNotFound();
      const metadata: Record<string, unknown> = { ...(source.metadata ?? {}), lastModified: new Date().toISOString() };
      if (body.copyMetadata === false && body.metadata) {
        if (body.metadata.cacheControl !== undefined) metadata.cacheControl = body.metadata.cacheControl;
        if (body.metadata.mimetype !== undefined) metadata.mimetype = body.metadata.mimetype;
      }
      const previous = await findObject(client, to.bucket, to.name);
      const id = await writeObject(
        client,
        { bucketId: to.bucket, name: to.name, owner, version, metadata },
        upsert ? 'upsert' : 'insert',
      );
      if (!id) throw objectNotFound();
      await files.copy(source.bucket_id, source.id, source.version ?? '', to.bucket, id, version);
      return { copied: await findObject(client, to.bucket, to.name), replaced: previous };
    });
    if (replaced?.version) await files.remove(replaced.bucket_id, replaced.id, replaced.version);
    if (!copied) throw objectNotFound();
    return {
      Id: copied.id,
      Key: `${to.bucket}/${to.name}`,
      ...copied,
      created_at: copied.created_at?.toISOString() ?? null,
      updated_at: copied.updated_at?.toISOString() ?? null,
      last_accessed_at: copied.last_accessed_at?.toISOString() ?? null,
    };
  });

  async function findForInfo(request: FastifyRequest, address: { bucket: string; name: string }) {
    const bucket = await asOwnerReading(context, (client) => findBucket(client, address.bucket));
    if (!bucket) throw bucketNotFound();
    // As storage-api: a public bucket's objects are described to anyone with the key.
    const find = (client: Parameters<Parameters<typeof asOwnerReading>[1]>[0]) =>
      client
        .query(
          `select id, bucket_id, name, owner, version, metadata, user_metadata, created_at, updated_at, last_accessed_at
           from storage.objects where bucket_id = $1 and name = $2`,
          [address.bucket, address.name],
        )
        .then((result) => result.rows[0] as (ObjectRow & { user_metadata: unknown }) | undefined);
    const row = bucket.public
      ? await asOwnerReading(context, find)
      : await asCaller(context, request, await callerOf(context, request), find);
    if (!row) throw objectNotFound();
    return { ...row, created_at: toDate(row.created_at), updated_at: toDate(row.updated_at) };
  }

  app.get('/object/info/:bucket/*', async (request, reply: FastifyReply) => {
    const generic = await wordBucketAddress(context, request, 'info');
    if (generic) return operations.download(request, reply, generic);
    const row = await findForInfo(request, addressOf(request));
    objectHeaders(request, reply, row);
    reply.header('content-type', 'application/json; charset=utf-8').removeHeader('content-disposition');
    return infoOf(row);
  });

  app.post('/object/list-v2/:bucket', async (request) => {
    const generic = await wordBucketUpload(context, request, 'list-v2');
    if (generic) return operations.upload(request, generic, uploadMode(request));
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    const body = parse(listV2Body, await readJson(request));
    if (body.cursor !== undefined && body.cursor.length > 4096)
      throw invalidRequest('Invalid Parameter continuation token');
    return asCaller(context, request, verified, async (client) => {
      if (!(await findBucket(client, bucket))) throw bucketNotFound();
      return listObjectsV2(client, bucket, {
        prefix: body.prefix,
        limit: body.limit,
        cursor: body.cursor,
        withDelimiter: body.with_delimiter,
        descending: body.sortBy.order === 'desc',
      });
    });
  });
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}

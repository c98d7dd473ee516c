// /bucket: list, get, create, update, empty and delete, as storage-api answers them. Reads and
// writes of storage.buckets run under the caller's role (this project's policies let everyone list
// and nobody else write, so only the service role changes buckets); emptying removes the objects
// the caller's policies let her delete, all or none; a bucket that still holds objects is not deleted.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isDatabaseError } from '../rest/errors.ts';
import { accessDenied, bucketExists, bucketNotFound, StorageError } from './errors.ts';
import { asCaller, asOwner, bucketParams, callerOf, parse, readJson, type StorageContext } from './context.ts';
import {
  bucketHasObjects,
  countObjects,
  createBucket,
  deleteAllObjects,
  deleteBucket,
  findBucket,
  listBuckets,
  updateBucket,
} from './objects.ts';

/** storage-api's file_size_limit: bytes, or a number with a unit (`2MB` is 2,000,000 bytes). */
const fileSizeLimit = z.union([
  z.number().int().min(0),
  z
    .string()
    .regex(/^[0-9]+(?:\.[0-9]+)?(gb|mb|kb|b)$/i, 'a size such as 2097152, "500KB" or "2MB"')
    .transform((text) => {
      const [, value = '0', unit = 'b'] = /^([0-9.]+)([a-z]+)$/i.exec(text) ?? [];
      const factor = { gb: 1e9, mb: 1e6, kb: 1e3, b: 1 }[unit.toLowerCase() as 'gb' | 'mb' | 'kb' | 'b'];
      return Math.round(Number(Number(value).toPrecision(3)) * factor);
    }),
]);
const mimeTypes = z.array(z.string().max(255)).max(100).nullable();
const createBucketBody = z.object({
  id: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100),
  public: z.boolean().optional(),
  file_size_limit: fileSizeLimit.nullable().optional(),
  allowed_mime_types: mimeTypes.optional(),
});
const updateBucketBody = z.object({
  public: z.boolean().optional(),
  file_size_limit: fileSizeLimit.nullable().optional(),
  allowed_mime_types: mimeTypes.optional(),
});

export const bucketNotEmpty = () =>
  new StorageError(409, 'ResourceNotEmpty', 'ResourceNotEmpty', 'The bucket you tried to delete is not empty');

const withoutEmpty = (types: string[] | null | undefined) =>
  types === undefined || types === null ? types : types.filter((type) => type !== '');

export function bucketRoutes(app: FastifyInstance, context: StorageContext): void {
  app.get('/bucket', async (request) => {
    const verified = await callerOf(context, request);
    return asCaller(context, request, verified, listBuckets);
  });

  app.get('/bucket/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    const buckets = (await asCaller(context, request, verified, listBuckets)) as { id: string }[];
    const found = buckets.find((candidate) => candidate.id === bucket);
    if (!found) throw bucketNotFound();
    return found;
  });

  app.post('/bucket', async (request) => {
    const verified = await callerOf(context, request);
    const body = parse(createBucketBody, await readJson(request));
    const id = body.id ?? body.name;
    try {
      await asCaller(context, request, verified, (client) =>
        createBucket(client, {
          id,
          name: body.name,
          public: body.public ?? false,
          owner: verified.claims.sub ?? null,
          fileSizeLimit: body.file_size_limit ?? null,
          allowedMimeTypes: withoutEmpty(body.allowed_mime_types) ?? null,
        }),
      );
    } catch (error) {
      if (isDatabaseError(error) && error.code === '23505') throw bucketExists();
      throw error;
    }
    return { name: body.name };
  });

  app.put('/bucket/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    const body = parse(updateBucketBody, await readJson(request));
    const updated = await asCaller(context, request, verified, (client) =>
      updateBucket(client, bucket, {
        public: body.public,
        fileSizeLimit: body.file_size_limit,
        allowedMimeTypes: withoutEmpty(body.allowed_mime_types),
      }),
    );
    if (!updated) throw bucketNotFound();
    return { message: 'Successfully updated' };
  });

  app.post('/bucket/:bucket/empty', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    await readJson(request);
    // storage-api empties under the caller's role: the bucket must be visible to her and the
    // delete policy decides. Where it spares an object she can see, nothing is deleted (storage-api
    // would go on deleting the others), so a refused empty never leaves half a bucket.
    const removed = await asCaller(context, request, verified, async (client) => {
      if (!(await findBucket(client, bucket))) throw bucketNotFound();
      const visible = await countObjects(client, bucket);
      const deleted = await deleteAllObjects(client, bucket);
      if (deleted.length < visible) throw accessDenied('Access denied: the bucket holds objects you may not delete');
      return deleted;
    });
    for (const row of removed) {
      if (row.version) await context.files.remove(row.bucket_id, row.id, row.version);
    }
    return { message: 'Successfully emptied' };
  });

  app.delete('/bucket/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    await readJson(request);
    // As storage-api: existence and emptiness are judged as the owner (no policy may hide an
    // object that would be orphaned), the delete itself under the caller's role.
    const found = await asOwner(context, async (client) => {
      if (!(await findBucket(client, bucket))) return false;
      if (await bucketHasObjects(client, bucket)) throw bucketNotEmpty();
      return true;
    });
    if (!found) throw bucketNotFound();
    const deleted = await asCaller(context, request, verified, (client) => deleteBucket(client, bucket)).catch(
      (error: unknown) => {
        // An object uploaded since the check above keeps the bucket: the foreign key refuses.
        if (isDatabaseError(error) && error.code === '23503') throw bucketNotEmpty();
        throw error;
      },
    );
    if (!deleted) throw bucketNotFound();
    return { message: 'Successfully deleted' };
  });
}

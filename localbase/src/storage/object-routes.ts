// The generic object routes: upload (POST, upsert with `x-upsert`), update (PUT), download (GET,
// HEAD for `exists`), public download, list and remove, each also reachable for a bucket whose name
// is one of storage-api's fixed route words (route-words.ts).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { VerifiedToken } from '../jwt.ts';
import {
  addressOf,
  asCaller,
  asOwner,
  asOwnerReading,
  bucketParams,
  callerOf,
  objectName,
  parse,
  readJson,
  requireApiKey,
  sendObject,
  type ObjectAddress,
  type StorageContext,
} from './context.ts';
import { bucketNotFound, objectNotFound } from './errors.ts';
import { folderPrefix, listChildren } from './listing.ts';
import { deleteObjects, findBucket, findObject, objectsUnder, writeObject } from './objects.ts';
import { requestShape, wordAsBucket } from './route-words.ts';
import { requireActiveSigner } from './signer.ts';
import { receiveUpload } from './upload.ts';

export type UploadMode = 'insert' | 'upsert' | 'update';

/** Who writes: the caller under its own role, or a signed upload URL as the owner for its signer. */
export type Writer = { kind: 'caller'; verified: VerifiedToken } | { kind: 'signed'; owner: string | null };

const listBody = z.object({
  prefix: z.string().default(''),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
  sortBy: z
    .object({
      column: z.enum(['name', 'created_at', 'updated_at', 'last_accessed_at']).default('name'),
      order: z.enum(['asc', 'desc']).default('asc'),
    })
    .default({ column: 'name', order: 'asc' }),
  search: z.string().default(''),
});
const removeBody = z.object({ prefixes: z.array(z.string().min(1)).min(1).max(1000) });

export async function bucketExistsNamed(context: StorageContext, id: string): Promise<boolean> {
  return (await asOwnerReading(context, (client) => findBucket(client, id))) !== undefined;
}

const wordParams = z.object({ bucket: z.string().min(1), '*': z.string().optional() });

/**
 * A fixed-word route (`/object/<word>/:bucket/*`) that means the generic route for a bucket named
 * `<word>` (its object `<bucket>/<rest>`): when that bucket exists and the fixed reading cannot be
 * meant (`fixedImpossible`, a signed download without a token), or names a bucket that does not
 * exist, or, both buckets existing, names an object that does not exist where the generic reading's
 * does. Otherwise the fixed route, as storage-api reads it. Existence is judged as the owner.
 */
export async function wordBucketAddress(
  context: StorageContext,
  request: FastifyRequest,
  word: string,
  fixedImpossible = false,
): Promise<ObjectAddress | undefined> {
  const params = wordParams.safeParse(request.params);
  if (!params.success) return undefined;
  const { bucket, '*': rest } = params.data;
  const generic = wordAsBucket(word, bucket, rest);
  const genericName = generic.raw.replace(/^\/+/, '');
  const fixedName = (rest ?? '').replace(/^\/+/, '');
  const useGeneric = await asOwnerReading(context, async (client) => {
    if (!(await findBucket(client, word))) return false;
    if (fixedImpossible || !(await findBucket(client, bucket))) return true;
    if (fixedName !== '' && (await findObject(client, bucket, fixedName))) return false;
    return (await findObject(client, word, genericName)) !== undefined;
  });
  return useGeneric ? { bucket: word, name: objectName(generic.raw) } : undefined;
}

/**
 * A POST on a fixed-word route that is an upload into the bucket named `<word>`: upload-shaped
 * (requestShape), or JSON with `x-upsert` where only the word's bucket exists.
 */
export async function wordBucketUpload(
  context: StorageContext,
  request: FastifyRequest,
  word: string,
): Promise<ObjectAddress | undefined> {
  const shape = requestShape(request);
  if (shape === 'call') return undefined;
  if (shape === 'either') return wordBucketAddress(context, request, word);
  const params = parse(wordParams, request.params);
  const generic = wordAsBucket(word, params.bucket, params['*']);
  return { bucket: generic.bucket, name: objectName(generic.raw) };
}

export function objectOperations(context: StorageContext) {
  const { files } = context;

  async function upload(request: FastifyRequest, address: ObjectAddress, mode: UploadMode, writer?: Writer) {
    const { bucket, name } = address;
    const who: Writer = writer ?? { kind: 'caller', verified: await callerOf(context, request) };
    // A signed upload URL writes for its signer only while she may still write (signer.ts).
    const signer = who.kind === 'signed' ? who.owner : null;
    // As storage-api: the bucket's limits are read as the owner, before the body, so a refused
    // upload costs no transfer and writes nothing; policies still decide the write itself.
    const limits = await asOwnerReading(context, async (client) => {
      const found = await findBucket(client, bucket);
      if (found && signer) await requireActiveSigner(client, signer, { lock: false });
      return found;
    });
    if (!limits) throw bucketNotFound();
    const content = await receiveUpload(request, files, limits, name);
    const version = randomUUID();
    const metadata = {
      eTag: content.eTag,
      size: content.size,
      mimetype: content.mimetype,
      cacheControl: content.cacheControl,
      lastModified: new Date().toISOString(),
      contentLength: content.size,
      httpStatusCode: 200,
    };
    const owner = who.kind === 'caller' ? (who.verified.claims.sub ?? null) : who.owner;
    try {
      const write = async (client: Parameters<Parameters<typeof asOwner>[1]>[0]) => {
        if (!(await findBucket(client, bucket))) throw bucketNotFound();
        if (signer) await requireActiveSigner(client, signer, { lock: true });
        const before = await findObject(client, bucket, name);
        const objectId = await writeObject(
          client,
          { bucketId: bucket, name, owner, version, metadata, userMetadata: content.userMetadata },
          mode,
        );
        if (!objectId) throw objectNotFound();
        // Renamed into place before commit: a committed row always has its bytes.
        await files.commit(content.staged.temp, bucket, objectId, version);
        return { id: objectId, previous: before };
      };
      const { id, previous } =
        who.kind === 'caller' ? await asCaller(context, request, who.verified, write) : await asOwner(context, write);
      if (previous?.version) await files.remove(previous.bucket_id, previous.id, previous.version);
      return { Id: id, Key: `${bucket}/${name}` };
    } finally {
      await content.staged.discard();
    }
  }

  async function download(request: FastifyRequest, reply: FastifyReply, address: ObjectAddress) {
    const verified = await callerOf(context, request);
    const row = await asCaller(context, request, verified, (client) =>
      findObject(client, address.bucket, address.name),
    );
    if (!row) throw objectNotFound();
    return sendObject(context, request, reply, row);
  }

  async function publicDownload(request: FastifyRequest, reply: FastifyReply, address: ObjectAddress) {
    // Public buckets are readable without a key at all, as on hosted storage.
    const row = await asOwnerReading(context, async (client) => {
      const bucket = await findBucket(client, address.bucket);
      if (!bucket?.public) throw bucketNotFound();
      return findObject(client, address.bucket, address.name);
    });
    if (!row) throw objectNotFound();
    return sendObject(context, request, reply, row);
  }

  async function list(request: FastifyRequest, bucket: string) {
    const verified = await callerOf(context, request);
    const body = parse(listBody, await readJson(request));
    const rows = await asCaller(context, request, verified, async (client) => {
      if (!(await findBucket(client, bucket))) throw bucketNotFound();
      return objectsUnder(client, bucket, folderPrefix(body.prefix));
    });
    return listChildren(rows, {
      prefix: body.prefix,
      limit: body.limit,
      offset: body.offset,
      sortColumn: body.sortBy.column,
      descending: body.sortBy.order === 'desc',
      search: body.search,
    });
  }

  return { upload, download, publicDownload, list };
}

export type ObjectOperations = ReturnType<typeof objectOperations>;

export const uploadMode = (request: FastifyRequest): UploadMode =>
  request.headers['x-upsert'] === 'true' ? 'upsert' : 'insert';

export function objectRoutes(app: FastifyInstance, context: StorageContext, operations: ObjectOperations): void {
  const { upload, download, publicDownload, list } = operations;

  app.post('/object/:bucket/*', (request) => upload(request, addressOf(request), uploadMode(request)));
  app.put('/object/:bucket/*', (request) => upload(request, addressOf(request), 'update'));
  // GET and HEAD (storage-js's `exists`) as one route: HEAD answers the headers without the bytes.
  const getAndHead = ['GET', 'HEAD'] as const;
  app.route({
    method: [...getAndHead],
    url: '/object/:bucket/*',
    handler: (request, reply) => download(request, reply, addressOf(request)),
  });

  app.route({
    method: [...getAndHead],
    url: '/object/authenticated/:bucket/*',
    handler: async (request, reply) => {
      const generic = await wordBucketAddress(context, request, 'authenticated');
      return download(request, reply, generic ?? addressOf(request));
    },
  });

  app.route({
    method: [...getAndHead],
    url: '/object/public/:bucket/*',
    handler: async (request, reply) => {
      const generic = await wordBucketAddress(context, request, 'public');
      if (generic) {
        requireApiKey(context, request);
        return download(request, reply, generic);
      }
      return publicDownload(request, reply, addressOf(request));
    },
  });

  app.post('/object/list/:bucket', async (request) => {
    const generic = await wordBucketUpload(context, request, 'list');
    if (generic) return upload(request, generic, uploadMode(request));
    return list(request, parse(bucketParams, request.params).bucket);
  });

  app.delete('/object/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    const { prefixes } = parse(removeBody, await readJson(request));
    const removed = await asCaller(context, request, verified, (client) =>
      deleteObjects(
        client,
        bucket,
        prefixes.map((prefix) => prefix.replace(/^\/+/, '')),
      ),
    );
    // Bytes go only once their rows are gone for good (committed).
    for (const row of removed) {
      if (row.version) await context.files.remove(row.bucket_id, row.id, row.version);
    }
    return removed;
  });
}

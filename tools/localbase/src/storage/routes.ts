// /storage/v1: buckets and objects. Rows live in storage.objects / storage.buckets and are read and
// written under the caller's role (RLS decides); bytes live under DATA_DIR (files.ts).
import { createHash, randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { MissingApiKeyError, resolveCaller } from '../caller.ts';
import { InvalidJsonError, isBodyTooLarge, parseJsonBytes } from '../json-body.ts';
import { JwtError, type TokenVerifier, type VerifiedToken } from '../jwt.ts';
import { isDatabaseError } from '../rest/errors.ts';
import {
  ConnectionBusyError,
  httpRequestContext,
  SessionEndedError,
  withOwnerTransaction,
  withRequestTransaction,
} from '../request-transaction.ts';
import {
  accessDenied,
  bucketExists,
  bucketNotFound,
  invalidJwt,
  invalidRequest,
  objectExists,
  objectNotFound,
  sendStorageError,
  StorageError,
} from './errors.ts';
import { ObjectFiles } from './files.ts';
import { folderPrefix, listChildren } from './listing.ts';
import { createBucket, deleteObjects, findBucket, findObject, listBuckets, objectsUnder, writeObject, type ObjectRow } from './objects.ts';

export interface StorageRoutesOptions {
  pool: pg.Pool;
  verifier: TokenVerifier;
  /** Where object bytes live: DATA_DIR/storage. */
  root: string;
}

/** The hosted default upload limit (50 MiB). */
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;
const MAX_NAME_LENGTH = 1024;

const objectParams = z.object({ bucket: z.string().min(1), '*': z.string() });
const bucketParams = z.object({ bucket: z.string().min(1) });
const createBucketBody = z.object({
  id: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100),
  public: z.boolean().optional(),
});
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

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(parseJsonBytes(value) ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidRequest(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

function objectName(raw: string): string {
  const name = raw.replace(/^\/+/, '');
  if (name === '' || name.length > MAX_NAME_LENGTH || name.endsWith('/')) throw invalidRequest('Invalid key: ' + raw);
  return name;
}

interface Upload {
  bytes: Buffer;
  mimetype: string;
  cacheControl: string;
}

async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (request.isMultipart()) {
    const part = await request.file({ limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1 } });
    if (!part) throw invalidRequest('the multipart body has no file part');
    const bytes = await part.toBuffer();
    const cacheField = part.fields.cacheControl;
    const cacheValue = cacheField && !Array.isArray(cacheField) && cacheField.type === 'field' ? String(cacheField.value) : '3600';
    return { bytes, mimetype: part.mimetype || 'application/octet-stream', cacheControl: `max-age=${cacheValue}` };
  }
  const body = request.body;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  const mimetype = request.headers['content-type'] ?? 'application/octet-stream';
  const cacheControl = request.headers['cache-control'] ?? 'max-age=3600';
  return { bytes, mimetype, cacheControl };
}

function toStorageError(error: Error & { code?: string; statusCode?: number }): StorageError {
  if (error instanceof StorageError) return error;
  if (error instanceof JwtError) return invalidJwt(error.reason === 'expired' ? 'jwt expired' : error.message);
  if (error instanceof MissingApiKeyError) return new StorageError(401, 'InvalidJWT', 'Unauthorized', error.message);
  if (error instanceof SessionEndedError) return invalidJwt(error.message);
  if (error instanceof InvalidJsonError) return invalidRequest(error.message);
  if (error instanceof ConnectionBusyError) return new StorageError(500, 'DatabaseTimeout', 'Internal Server Error', error.message);
  if (isBodyTooLarge(error) || error.code === 'FST_REQ_FILE_TOO_LARGE') {
    return new StorageError(413, 'EntityTooLarge', 'Payload too large', `The object exceeded the maximum allowed size of ${UPLOAD_LIMIT_BYTES} bytes`);
  }
  if (isDatabaseError(error)) {
    if (error.code === '42501') return accessDenied(error.message);
    if (error.code === '23505') return objectExists();
    if (error.code === '23503') return bucketNotFound();
    return new StorageError(400, 'DatabaseError', 'Bad Request', error.message);
  }
  return new StorageError(500, 'InternalError', 'Internal Server Error', 'localbase storage failed');
}

export async function storageRoutes(app: FastifyInstance, options: StorageRoutesOptions): Promise<void> {
  const { pool } = options;
  const files = new ObjectFiles(options.root);
  // Every body arrives as bytes: an uploaded .json file must be stored byte for byte, so JSON
  // request bodies (bucket, list, remove) are parsed by the route that expects one.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  await app.register(multipart, { limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 10 } });

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toStorageError(error);
    if (failure.statusCode >= 500) request.log.error({ err: error }, 'storage request failed');
    return sendStorageError(reply, failure);
  });
  app.setNotFoundHandler((request, reply) =>
    sendStorageError(reply, new StorageError(404, 'NotSupported', 'Not Found', `localbase does not implement ${request.method} ${request.url.split('?')[0]}`)),
  );

  function asCaller<T>(request: FastifyRequest, verified: VerifiedToken, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return withRequestTransaction(pool, httpRequestContext(request, verified), work);
  }

  const caller = (request: FastifyRequest) => resolveCaller(request.headers, options.verifier);

  function sendObject(reply: FastifyReply, row: ObjectRow): FastifyReply {
    const metadata = row.metadata ?? {};
    reply.header('content-type', typeof metadata.mimetype === 'string' ? metadata.mimetype : 'application/octet-stream');
    if (typeof metadata.cacheControl === 'string') reply.header('cache-control', metadata.cacheControl);
    if (typeof metadata.eTag === 'string') reply.header('etag', metadata.eTag);
    if (typeof metadata.size === 'number') reply.header('content-length', String(metadata.size));
    return reply.send(files.read(row.bucket_id, row.id, row.version ?? ''));
  }

  app.get('/bucket', async (request) => {
    const verified = await caller(request);
    return asCaller(request, verified, listBuckets);
  });

  app.get('/bucket/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await caller(request);
    const buckets = (await asCaller(request, verified, listBuckets)) as { id: string }[];
    const found = buckets.find((candidate) => candidate.id === bucket);
    if (!found) throw bucketNotFound();
    return found;
  });

  app.post('/bucket', async (request) => {
    const body = parse(createBucketBody, request.body);
    const verified = await caller(request);
    const id = body.id ?? body.name;
    try {
      await asCaller(request, verified, (client) =>
        createBucket(client, { id, name: body.name, public: body.public ?? false, owner: verified.claims.sub ?? null }),
      );
    } catch (error) {
      if (isDatabaseError(error) && error.code === '23505') throw bucketExists();
      throw error;
    }
    return { name: body.name };
  });

  async function upload(request: FastifyRequest, mode: 'insert' | 'upsert' | 'update') {
    const params = parse(objectParams, request.params);
    const name = objectName(params['*']);
    const verified = await caller(request);
    const content = await readUpload(request);
    const staged = await files.stage(content.bytes);
    const version = randomUUID();
    const metadata = {
      eTag: `"${createHash('md5').update(content.bytes).digest('hex')}"`,
      size: content.bytes.length,
      mimetype: content.mimetype,
      cacheControl: content.cacheControl,
      lastModified: new Date().toISOString(),
      contentLength: content.bytes.length,
      httpStatusCode: 200,
    };
    try {
      const { id, previous } = await asCaller(request, verified, async (client) => {
        if (!(await findBucket(client, params.bucket))) throw bucketNotFound();
        const before = await findObject(client, params.bucket, name);
        const objectId = await writeObject(
          client,
          { bucketId: params.bucket, name, owner: verified.claims.sub ?? null, version, metadata },
          mode,
        );
        if (!objectId) throw objectNotFound();
        // Renamed into place before commit: a committed row always has its bytes.
        await files.commit(staged.temp, params.bucket, objectId, version);
        return { id: objectId, previous: before };
      });
      if (previous?.version) await files.remove(previous.bucket_id, previous.id, previous.version);
      return { Id: id, Key: `${params.bucket}/${name}` };
    } finally {
      await staged.discard();
    }
  }

  app.post('/object/:bucket/*', (request) =>
    upload(request, request.headers['x-upsert'] === 'true' ? 'upsert' : 'insert'),
  );
  app.put('/object/:bucket/*', (request) => upload(request, 'update'));

  async function download(request: FastifyRequest, reply: FastifyReply) {
    const params = parse(objectParams, request.params);
    const name = objectName(params['*']);
    const verified = await caller(request);
    const row = await asCaller(request, verified, (client) => findObject(client, params.bucket, name));
    if (!row) throw objectNotFound();
    return sendObject(reply, row);
  }

  app.get('/object/:bucket/*', download);
  app.get('/object/authenticated/:bucket/*', download);

  app.get('/object/public/:bucket/*', async (request, reply) => {
    const params = parse(objectParams, request.params);
    const name = objectName(params['*']);
    // Public buckets are readable without a key at all, as on hosted storage.
    const row = await withOwnerTransaction(pool, async (client) => {
      const bucket = await findBucket(client, params.bucket);
      if (!bucket?.public) throw bucketNotFound();
      return findObject(client, params.bucket, name);
    });
    if (!row) throw objectNotFound();
    return sendObject(reply, row);
  });

  app.post('/object/list/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const body = parse(listBody, request.body);
    const verified = await caller(request);
    const rows = await asCaller(request, verified, async (client) => {
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
  });

  app.delete('/object/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const { prefixes } = parse(removeBody, request.body);
    const verified = await caller(request);
    const removed = await asCaller(request, verified, (client) =>
      deleteObjects(client, bucket, prefixes.map((prefix) => prefix.replace(/^\/+/, ''))),
    );
    // Bytes go only once their rows are gone for good (committed).
    for (const row of removed) {
      if (row.version) await files.remove(row.bucket_id, row.id, row.version);
    }
    return removed;
  });
}

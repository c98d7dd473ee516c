// /storage/v1: buckets and objects. Rows live in storage.objects / storage.buckets and are read and
// written under the caller's role (RLS decides); bytes live under DATA_DIR (files.ts).
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { MissingApiKeyError, resolveCaller } from '../caller.ts';
import {
  BodyTooLargeError,
  InvalidJsonError,
  isBodyTooLarge,
  isUnsupportedMediaType,
  JSON_BODY_LIMIT_BYTES,
  parseJsonText,
  readStreamWithin,
} from '../json-body.ts';
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
  entityTooLarge,
  invalidJwt,
  invalidRequest,
  objectExists,
  objectNotFound,
  requestBodyTooLarge,
  sendStorageError,
  StorageError,
} from './errors.ts';
import { ObjectFiles } from './files.ts';
import { folderPrefix, listChildren } from './listing.ts';
import { servingHeaders } from './serving.ts';
import { receiveUpload, UPLOAD_LIMIT_BYTES } from './upload.ts';
import {
  createBucket,
  deleteObjects,
  findBucket,
  findObject,
  listBuckets,
  objectsUnder,
  writeObject,
  type ObjectRow,
} from './objects.ts';

export interface StorageRoutesOptions {
  pool: pg.Pool;
  verifier: TokenVerifier;
  /** Where object bytes live: DATA_DIR/storage. */
  root: string;
}

const MAX_NAME_LENGTH = 1024;

const objectParams = z.object({ bucket: z.string().min(1), '*': z.string() });
const bucketParams = z.object({ bucket: z.string().min(1) });
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
const createBucketBody = z.object({
  id: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100),
  public: z.boolean().optional(),
  file_size_limit: fileSizeLimit.nullable().optional(),
  allowed_mime_types: z.array(z.string().max(255)).max(100).nullable().optional(),
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
const downloadQuery = z.object({ download: z.string().optional() });

/** Reads a JSON request body that arrived as a stream (storage parses bodies per route). */
async function readJson(request: FastifyRequest): Promise<unknown> {
  const body = request.body as Readable | undefined;
  if (!body) return undefined;
  return parseJsonText((await readStreamWithin(body, JSON_BODY_LIMIT_BYTES)).toString('utf8'));
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
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

function toStorageError(error: Error & { code?: string; statusCode?: number }): StorageError {
  if (error instanceof StorageError) return error;
  const fastifyStatus = error.statusCode;
  const { message } = error;
  if (error instanceof JwtError) return invalidJwt(error.reason === 'expired' ? 'jwt expired' : error.message);
  if (error instanceof MissingApiKeyError) return new StorageError(401, 'InvalidJWT', 'Unauthorized', error.message);
  if (error instanceof SessionEndedError) return invalidJwt(error.message);
  if (error instanceof InvalidJsonError) return invalidRequest(error.message);
  if (error instanceof ConnectionBusyError)
    return new StorageError(500, 'DatabaseTimeout', 'Internal Server Error', error.message);
  if (error instanceof BodyTooLargeError) return requestBodyTooLarge(error.limitBytes);
  if (isBodyTooLarge(error) || error.code === 'FST_REQ_FILE_TOO_LARGE') return entityTooLarge(UPLOAD_LIMIT_BYTES);
  if (isUnsupportedMediaType(error))
    return new StorageError(415, 'InvalidMimeType', 'invalid_mime_type', 'Invalid Content-Type header');
  if (isDatabaseError(error)) {
    if (error.code === '42501') return accessDenied(error.message);
    if (error.code === '23505') return objectExists();
    if (error.code === '23503') return bucketNotFound();
    return new StorageError(400, 'DatabaseError', 'Bad Request', error.message);
  }
  // Anything else Fastify refused as the client's fault (a malformed multipart body, a bad length).
  if (fastifyStatus && fastifyStatus >= 400 && fastifyStatus < 500) {
    return new StorageError(fastifyStatus, 'InvalidRequest', 'Bad Request', message);
  }
  return new StorageError(500, 'InternalError', 'Internal Server Error', 'localbase storage failed');
}

export async function storageRoutes(app: FastifyInstance, options: StorageRoutesOptions): Promise<void> {
  const { pool } = options;
  const files = new ObjectFiles(options.root);
  // Every body arrives as the request stream: an upload is checked against its bucket's limits
  // before any byte is read and then streamed to disk (an uploaded .json file byte for byte), and
  // JSON request bodies (bucket, list, remove) are read by the route that expects one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 10 } });

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toStorageError(error);
    if (failure.statusCode >= 500) request.log.error({ err: error }, 'storage request failed');
    return sendStorageError(reply, failure);
  });
  app.setNotFoundHandler((request, reply) =>
    sendStorageError(
      reply,
      new StorageError(
        404,
        'NotSupported',
        'Not Found',
        `localbase does not implement ${request.method} ${request.url.split('?')[0]}`,
      ),
    ),
  );

  function asCaller<T>(
    request: FastifyRequest,
    verified: VerifiedToken,
    work: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    return withRequestTransaction(pool, httpRequestContext(request, verified), work);
  }

  const caller = (request: FastifyRequest) => resolveCaller(request.headers, options.verifier);

  function sendObject(request: FastifyRequest, reply: FastifyReply, row: ObjectRow): FastifyReply {
    const metadata = row.metadata ?? {};
    const download = downloadQuery.safeParse(request.query);
    reply.headers(
      servingHeaders({
        mimetype: typeof metadata.mimetype === 'string' ? metadata.mimetype : undefined,
        name: row.name,
        download: download.success ? download.data.download : undefined,
      }),
    );
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
    const verified = await caller(request);
    const body = parse(createBucketBody, await readJson(request));
    const id = body.id ?? body.name;
    try {
      await asCaller(request, verified, (client) =>
        createBucket(client, {
          id,
          name: body.name,
          public: body.public ?? false,
          owner: verified.claims.sub ?? null,
          fileSizeLimit: body.file_size_limit ?? null,
          allowedMimeTypes: body.allowed_mime_types?.filter((type) => type !== '') ?? null,
        }),
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
    // As storage-api: the bucket's limits are read as the owner, before the body, so a refused
    // upload costs no transfer and writes nothing; policies still decide the write itself.
    const limits = await withOwnerTransaction(pool, (client) => findBucket(client, params.bucket));
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
        await files.commit(content.staged.temp, params.bucket, objectId, version);
        return { id: objectId, previous: before };
      });
      if (previous?.version) await files.remove(previous.bucket_id, previous.id, previous.version);
      return { Id: id, Key: `${params.bucket}/${name}` };
    } finally {
      await content.staged.discard();
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
    return sendObject(request, reply, row);
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
    return sendObject(request, reply, row);
  });

  app.post('/object/list/:bucket', async (request) => {
    const { bucket } = parse(bucketParams, request.params);
    const verified = await caller(request);
    const body = parse(listBody, await readJson(request));
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
    const verified = await caller(request);
    const { prefixes } = parse(removeBody, await readJson(request));
    const removed = await asCaller(request, verified, (client) =>
      deleteObjects(
        client,
        bucket,
        prefixes.map((prefix) => prefix.replace(/^\/+/, '')),
      ),
    );
    // Bytes go only once their rows are gone for good (committed).
    for (const row of removed) {
      if (row.version) await files.remove(row.bucket_id, row.id, row.version);
    }
    return removed;
  });
}

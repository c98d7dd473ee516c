// What every storage route needs: the pool, the bytes on disk, the signing secret and keys, the
// caller's verified token and transactions under its role or the owner's, and the small parsers of
// paths and JSON bodies that answer in storage-api's error shape.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { judgeApiKey, presentedApiKey, type ApiKeyVerdict, type ProjectApiKeys } from '../api-key.ts';
import { resolveCaller } from '../caller.ts';
import { JSON_BODY_LIMIT_BYTES, parseJsonText, readStreamWithin } from '../json-body.ts';
import type { TokenVerifier, VerificationKeys, VerifiedToken } from '../jwt.ts';
import { httpRequestContext } from '../request-context.ts';
import { withOwnerTransaction, withRequestTransaction } from '../request-transaction.ts';
import { invalidRequest } from './errors.ts';
import type { ObjectFiles } from './files.ts';
import type { ObjectRow } from './objects.ts';
import { servingHeaders } from './serving.ts';

export const MAX_NAME_LENGTH = 1024;

/** An object's place: its bucket and its name in it. */
export interface ObjectAddress {
  bucket: string;
  name: string;
}

export interface StorageContext {
  pool: pg.Pool;
  files: ObjectFiles;
  verifier: TokenVerifier;
  /** The project's JWT secret: signed URLs are signed with it, as storage-api signs them. */
  jwtSecret: string;
  /**
   * What verifies a signed URL's token: that secret and the session signing keys, so an access
   * token offered as one verifies and is refused for its missing scope, as storage-api with the
   * project's JWKS refuses it.
   */
  tokenKeys: VerificationKeys;
  keys: ProjectApiKeys;
}

/** A request that reached a route Supabase leaves open, but is not the open use of it. */
export class ApiKeyRefusedError extends Error {
  constructor(readonly verdict: Exclude<ApiKeyVerdict, 'valid'>) {
    super(verdict === 'missing' ? 'No API key found in request' : 'Invalid API key');
  }
}

/**
 * The API-key gate for the routes it leaves open (public and signed downloads) when a request on
 * them turns out to be something else: an object of a bucket named `public` or `sign`, a signing call.
 */
export function requireApiKey(context: StorageContext, request: FastifyRequest): void {
  const verdict = judgeApiKey(context.keys, presentedApiKey(request));
  if (verdict !== 'valid') throw new ApiKeyRefusedError(verdict);
}

export function callerOf(context: StorageContext, request: FastifyRequest): Promise<VerifiedToken> {
  return resolveCaller(request.headers, context.verifier);
}

export function asCaller<T>(
  context: StorageContext,
  request: FastifyRequest,
  verified: VerifiedToken,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return withRequestTransaction(context.pool, httpRequestContext(request, verified), work);
}

export function asOwner<T>(context: StorageContext, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withOwnerTransaction(context.pool, work);
}

/** A lookup as the database owner, in a read-only transaction (on PGlite, nobody's write). */
export function asOwnerReading<T>(context: StorageContext, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withOwnerTransaction(context.pool, work, { readOnly: true });
}

/** Reads a JSON request body that arrived as a stream (storage parses bodies per route). */
export async function readJson(request: FastifyRequest): Promise<unknown> {
  const body = request.body as Readable | undefined;
  if (!body) return undefined;
  const text = (await readStreamWithin(body, JSON_BODY_LIMIT_BYTES)).toString('utf8');
  return text.trim() === '' ? undefined : parseJsonText(text);
}

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw invalidRequest(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

export function objectName(raw: string): string {
  const name = raw.replace(/^\/+/, '');
  if (name === '' || name.length > MAX_NAME_LENGTH || name.endsWith('/')) throw invalidRequest('Invalid key: ' + raw);
  return name;
}

export const objectParams = z.object({ bucket: z.string().min(1), '*': z.string() });
export const bucketParams = z.object({ bucket: z.string().min(1) });

export function addressOf(request: FastifyRequest): ObjectAddress {
  const params = parse(objectParams, request.params);
  return { bucket: params.bucket, name: objectName(params['*']) };
}

const downloadQuery = z.object({ download: z.string().optional() });

/** The served headers of a stored object (type, disposition, sandbox, caching, length). */
export function objectHeaders(request: FastifyRequest, reply: FastifyReply, row: ObjectRow): void {
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
  if (typeof metadata.lastModified === 'string') {
    reply.header('last-modified', new Date(metadata.lastModified).toUTCString());
  }
}

export function sendObject(
  context: StorageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  row: ObjectRow,
): FastifyReply {
  objectHeaders(request, reply, row);
  const size = row.metadata?.size;
  if (typeof size === 'number') reply.header('content-length', String(size));
  if (request.method === 'HEAD') return reply.send();
  return reply.send(context.files.read(row.bucket_id, row.id, row.version ?? ''));
}

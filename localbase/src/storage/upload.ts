// Receiving an upload as Supabase Storage does: the bucket's `allowed_mime_types` and
// `file_size_limit` are checked before the bytes are read (the content type is the request's
// Content-Type, or the multipart part's / its `contentType` field), the declared length is checked
// against the limit up front, and the bytes are streamed to a staging file under the limit, so a
// refused upload writes nothing and is never held whole in memory.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { entityTooLarge, invalidMimeType, invalidRequest, StorageError } from './errors.ts';
import type { ObjectFiles, StagedFile } from './files.ts';

/** The hosted default upload limit (50 MiB): no bucket allows more. */
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

export interface BucketLimits {
  fileSizeLimit: number | null;
  allowedMimeTypes: string[] | null;
}

export interface ReceivedUpload {
  staged: StagedFile;
  size: number;
  eTag: string;
  mimetype: string;
  cacheControl: string;
  /** The object's own metadata (`upload(..., { metadata })`), kept as storage.objects.user_metadata. */
  userMetadata: Record<string, unknown> | undefined;
}

/**
 * storage-js sends `metadata` as a JSON object: the multipart field `metadata`, or the header
 * `x-metadata` holding it base64-encoded. Anything else is the request's fault, 400 as storage-api.
 */
export function parseUserMetadata(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined || json === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalidRequest('Invalid metadata: it must be a JSON object');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidRequest('Invalid metadata: it must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function headerMetadata(request: FastifyRequest): string | undefined {
  const header = request.headers['x-metadata'];
  return typeof header === 'string' ? Buffer.from(header, 'base64').toString('utf8') : undefined;
}

/** storage-api keeps `.emptyFolderPlaceholder` objects (a "folder") exempt from types and at 0 bytes. */
export function isEmptyFolder(name: string): boolean {
  return name.endsWith('.emptyFolderPlaceholder');
}

/** The largest object this bucket takes: its own limit, never above the overall one. */
export function maxUploadBytes(limits: BucketLimits, name: string): number {
  if (isEmptyFolder(name)) return 0;
  return limits.fileSizeLimit === null ? UPLOAD_LIMIT_BYTES : Math.min(limits.fileSizeLimit, UPLOAD_LIMIT_BYTES);
}

/**
 * storage-api's validateMimeType: `type/subtype` matches an allowed `type/subtype` or `type/*`,
 * compared exactly as written (no case folding, parameters not stripped).
 */
export function mimeTypeAllowed(mimeType: string, allowed: string[]): boolean {
  const requested = mimeType.split('/');
  if (requested.length < 2) return false;
  const [type, subtype] = requested;
  return allowed.some((entry) => {
    const [allowedType, allowedSubtype] = entry.split('/');
    return allowedType === type && (allowedSubtype === '*' || allowedSubtype === subtype);
  });
}

function checkMimeType(mimeType: string, limits: BucketLimits, name: string): void {
  if (!limits.allowedMimeTypes || limits.allowedMimeTypes.length === 0 || isEmptyFolder(name)) return;
  if (!mimeTypeAllowed(mimeType, limits.allowedMimeTypes)) throw invalidMimeType(mimeType);
}

function declaredLength(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) && length >= 0 ? length : undefined;
}

/** Streams the bytes to a staging file with their MD5 (the eTag); over `limit` they are refused. */
async function stageWithin(files: ObjectFiles, source: Readable, limit: number, truncated: () => boolean) {
  const hash = createHash('md5');
  let size = 0;
  let tooLarge = false;
  const staged = await files.stageStream(source, (chunk) => {
    size += chunk.length;
    if (size > limit) {
      tooLarge = true;
      return false;
    }
    hash.update(chunk);
    return true;
  });
  if (tooLarge || truncated()) {
    await staged.discard();
    throw entityTooLarge();
  }
  return { staged, size, eTag: `"${hash.digest('hex')}"` };
}

export async function receiveUpload(
  request: FastifyRequest,
  files: ObjectFiles,
  limits: BucketLimits,
  name: string,
): Promise<ReceivedUpload> {
  try {
    return await (request.isMultipart()
      ? receiveMultipart(request, files, limits, name)
      : receiveRaw(request, files, limits, name));
  } catch (error) {
    // A malformed body (no boundary, a form cut short, a client gone mid-upload) is the request's
    // fault: storage-api's NoContentProvided, 400 InvalidRequest.
    if (error instanceof StorageError) throw error;
    throw invalidRequest((error as Error).message || 'No content provided');
  }
}

async function receiveMultipart(
  request: FastifyRequest,
  files: ObjectFiles,
  limits: BucketLimits,
  name: string,
): Promise<ReceivedUpload> {
  const limit = maxUploadBytes(limits, name);
  // busboy stops at limit + 1 bytes and marks the part truncated.
  const part = await request.file({ limits: { fileSize: limit, files: 1, fields: 10 }, throwFileSizeLimit: false });
  if (!part) throw invalidRequest('the multipart body has no file part');
  const fieldValue = (field: string): string | undefined => {
    const value = part.fields[field];
    return value && !Array.isArray(value) && value.type === 'field' ? String(value.value) : undefined;
  };
  const mimetype = fieldValue('contentType') || part.mimetype || 'application/octet-stream';
  let userMetadata: Record<string, unknown> | undefined;
  try {
    checkMimeType(mimetype, limits, name);
    userMetadata = parseUserMetadata(fieldValue('metadata') ?? headerMetadata(request));
  } catch (error) {
    part.file.resume();
    throw error;
  }
  const received = await stageWithin(files, part.file, limit, () => part.file.truncated);
  const cacheTime = fieldValue('cacheControl');
  return { ...received, mimetype, cacheControl: `max-age=${cacheTime ?? '3600'}`, userMetadata };
}

async function receiveRaw(
  request: FastifyRequest,
  files: ObjectFiles,
  limits: BucketLimits,
  name: string,
): Promise<ReceivedUpload> {
  const limit = maxUploadBytes(limits, name);
  const mimetype = request.headers['content-type'] || 'application/octet-stream';
  checkMimeType(mimetype, limits, name);
  const userMetadata = parseUserMetadata(headerMetadata(request));
  const length = declaredLength(request);
  if (length !== undefined && length > limit) throw entityTooLarge();
  // No body at all (no content type parser ran) is an empty object, as storage-api stores it.
  const body = (request.body as Readable | undefined) ?? Readable.from([]);
  const received = await stageWithin(files, body, limit, () => false);
  return { ...received, mimetype, cacheControl: request.headers['cache-control'] ?? 'max-age=3600', userMetadata };
}

// supabase/storage's error body: `{statusCode, code, error, message}`, sent with HTTP 400 unless the
// logical status is 500 (storage-api's legacy behaviour, which storage-js reads). Errors storage-api
// lets Fastify raise (a request body over Fastify's limit) keep their real status instead.
import type { FastifyReply } from 'fastify';

export class StorageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly error: string,
    message: string,
    /** The HTTP status when it is not storage-api's usual 400/500. */
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

export function sendStorageError(reply: FastifyReply, failure: StorageError): FastifyReply {
  return reply.status(failure.httpStatus ?? (failure.statusCode === 500 ? 500 : 400)).send({
    statusCode: String(failure.statusCode),
    code: failure.code,
    error: failure.error,
    message: failure.message,
  });
}

export const objectNotFound = () => new StorageError(404, 'NoSuchKey', 'not_found', 'Object not found');
export const bucketNotFound = () => new StorageError(404, 'NoSuchBucket', 'Bucket not found', 'Bucket not found');
export const objectExists = () => new StorageError(409, 'KeyAlreadyExists', 'Duplicate', 'The resource already exists');
export const bucketExists = () =>
  new StorageError(409, 'BucketAlreadyExists', 'Duplicate', 'The resource already exists');
export const accessDenied = (message: string) => new StorageError(403, 'AccessDenied', 'Unauthorized', message);
export const invalidRequest = (message: string) => new StorageError(400, 'InvalidRequest', 'Bad Request', message);
export const invalidJwt = (message: string) => new StorageError(403, 'InvalidJWT', 'Unauthorized', message);

/**
 * An object over the bucket's `file_size_limit` (or the overall limit): storage-api's EntityTooLarge,
 * word for word (apps compare the message), so the limit itself is not in it.
 */
export const entityTooLarge = () =>
  new StorageError(413, 'EntityTooLarge', 'Payload too large', 'The object exceeded the maximum allowed size');
/** A JSON request body (list, remove, bucket) over the JSON limit: answered 413, as Fastify does in storage-api. */
export const requestBodyTooLarge = (limitBytes: number) =>
  new StorageError(
    413,
    'EntityTooLarge',
    'Payload too large',
    `The request body exceeded the maximum allowed size of ${limitBytes} bytes`,
    413,
  );
/** A content type outside the bucket's `allowed_mime_types`: storage-api's InvalidMimeType. */
export const invalidMimeType = (mimeType: string) =>
  new StorageError(415, 'InvalidMimeType', 'invalid_mime_type', `mime type ${mimeType} is not supported`);

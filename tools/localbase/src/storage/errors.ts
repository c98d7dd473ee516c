// supabase/storage's error body: `{statusCode, code, error, message}`, sent with HTTP 400 unless the
// logical status is 500 (storage-api's legacy behaviour, which storage-js reads).
import type { FastifyReply } from 'fastify';

export class StorageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export function sendStorageError(reply: FastifyReply, failure: StorageError): FastifyReply {
  return reply.status(failure.statusCode === 500 ? 500 : 400).send({
    statusCode: String(failure.statusCode),
    code: failure.code,
    error: failure.error,
    message: failure.message,
  });
}

export const objectNotFound = () => new StorageError(404, 'NoSuchKey', 'not_found', 'Object not found');
export const bucketNotFound = () => new StorageError(404, 'NoSuchBucket', 'Bucket not found', 'Bucket not found');
export const objectExists = () => new StorageError(409, 'KeyAlreadyExists', 'Duplicate', 'The resource already exists');
export const bucketExists = () => new StorageError(409, 'BucketAlreadyExists', 'Duplicate', 'The resource already exists');
export const accessDenied = (message: string) => new StorageError(403, 'AccessDenied', 'Unauthorized', message);
export const invalidRequest = (message: string) => new StorageError(400, 'InvalidRequest', 'Bad Request', message);
export const invalidJwt = (message: string) => new StorageError(403, 'InvalidJWT', 'Unauthorized', message);

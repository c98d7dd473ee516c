// /storage/v1: buckets and objects. Rows live in storage.objects / storage.buckets and are read and
// written under the caller's role (RLS decides); bytes live under DATA_DIR (files.ts). The routes
// themselves are in bucket-routes.ts, object-routes.ts, signed-routes.ts, object-operations.ts and
// render-routes.ts; here are the body parsing and the error shape they share.
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { INVALID_API_KEY_BODY, NO_API_KEY_BODY, type ProjectApiKeys } from '../api-key.ts';
import { MissingApiKeyError } from '../caller.ts';
import { BodyTooLargeError, InvalidJsonError, isBodyTooLarge, isUnsupportedMediaType } from '../json-body.ts';
import { JwtError, type TokenVerifier, type VerificationKeys } from '../jwt.ts';
import { isDatabaseError } from '../rest/errors.ts';
import { ConnectionBusyError } from '../pooled-client.ts';
import { SessionEndedError } from '../session-guard.ts';
import { bucketRoutes } from './bucket-routes.ts';
import { ApiKeyRefusedError, type StorageContext } from './context.ts';
import {
  accessDenied,
  bucketNotFound,
  entityTooLarge,
  invalidJwt,
  invalidRequest,
  objectExists,
  requestBodyTooLarge,
  sendStorageError,
  StorageError,
} from './errors.ts';
import { ObjectFiles } from './files.ts';
import { operationRoutes } from './object-operations.ts';
import { objectOperations, objectRoutes } from './object-routes.ts';
import { renderRoutes } from './render-routes.ts';
import { signedRoutes } from './signed-routes.ts';
import { UPLOAD_LIMIT_BYTES } from './upload.ts';

export interface StorageRoutesOptions {
  pool: pg.Pool;
  verifier: TokenVerifier;
  /** Where object bytes live: DATA_DIR/storage. */
  root: string;
  /** The project's JWT secret, which signs signed URLs. */
  jwtSecret: string;
  /** The keys that verify a signed URL's token (the secret and the session signing keys). */
  tokenKeys: VerificationKeys;
  /** The project's API keys, asked for where a route the gate leaves open is not used openly. */
  keys: ProjectApiKeys;
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
  if (isBodyTooLarge(error) || error.code === 'FST_REQ_FILE_TOO_LARGE') return entityTooLarge();
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
    if (error instanceof ApiKeyRefusedError) {
      return reply
        .status(401)
        .header('content-type', 'application/json; charset=utf-8')
        .send(error.verdict === 'missing' ? NO_API_KEY_BODY : INVALID_API_KEY_BODY);
    }
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

  const context: StorageContext = {
    pool,
    files,
    verifier: options.verifier,
    jwtSecret: options.jwtSecret,
    tokenKeys: options.tokenKeys,
    keys: options.keys,
  };
  const operations = objectOperations(context);
  bucketRoutes(app, context);
  // Fixed route words first (Fastify prefers a static segment), each falling back to the generic
  // route for a bucket of that name (route-words.ts).
  signedRoutes(app, context, operations);
  operationRoutes(app, context, operations);
  renderRoutes(app, context);
  objectRoutes(app, context, operations);
}

// JSON bodies for every route family: parsed here so that each family answers malformed JSON and
// oversized bodies in its own error shape (Fastify's defaults would answer in Fastify's shape).
import type { FastifyInstance } from 'fastify';

/** Largest JSON body any API accepts. Storage uploads have their own, larger limit. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export class InvalidJsonError extends Error {
  readonly statusCode = 400;
}

/** Accepts an empty body as "no body" (PostgREST treats an empty RPC body as `{}`). */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch (error) {
        done(new InvalidJsonError(`malformed JSON body: ${(error as Error).message}`), undefined);
      }
    },
  );
}

/** Parses a JSON body kept as bytes (storage keeps JSON uploads byte-exact); empty means none. */
export function parseJsonBytes(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return body;
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidJsonError(`malformed JSON body: ${(error as Error).message}`);
  }
}

/** Fastify's own error codes for bodies it refused before any handler ran. */
export function isBodyTooLarge(error: { code?: string; statusCode?: number }): boolean {
  return error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413;
}

export function isUnsupportedMediaType(error: { code?: string; statusCode?: number }): boolean {
  return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415;
}

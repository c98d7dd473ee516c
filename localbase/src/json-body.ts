// JSON bodies for every route family: parsed here so that each family answers malformed JSON,
// over-deep JSON and oversized bodies in its own error shape (Fastify's defaults would answer in
// Fastify's shape).
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { JSON_BODY_LIMIT_BYTES } from '#contracts/http-limits.ts';

export { JSON_BODY_LIMIT_BYTES };

/**
 * Deepest nesting of arrays and objects accepted. Deeper documents are refused before JSON.parse:
 * code that walks a parsed value recursively (serialisers, validators) would overflow the stack.
 */
export const MAX_JSON_DEPTH = 256;

export class InvalidJsonError extends Error {
  readonly statusCode = 400;
  constructor(
    message: string,
    readonly reason: 'malformed' | 'too_deep' = 'malformed',
  ) {
    super(message);
  }
}

/** A body over the limit, raised where Fastify's own limit does not apply (bodies read by a route). */
export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'FST_ERR_CTP_BODY_TOO_LARGE';
  constructor(readonly limitBytes: number) {
    super(`Request body is larger than ${limitBytes} bytes`);
  }
}

/**
 * The nesting depth of a JSON text, stopping as soon as it exceeds `max`; brackets inside strings
 * do not count. One pass, no recursion: safe on any input, valid JSON or not.
 */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
      continue;
    }
    if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
}

/** JSON.parse behind the depth limit; empty text is "no body" (undefined). */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text)) {
    throw new InvalidJsonError(`JSON nesting is deeper than the limit of ${MAX_JSON_DEPTH} levels`, 'too_deep');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidJsonError(`malformed JSON body: ${(error as Error).message}`);
  }
}

/** Accepts an empty body as "no body" (PostgREST treats an empty RPC body as `{}`). */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      try {
        done(null, parseJsonText(text));
      } catch (error) {
        done(error as InvalidJsonError, undefined);
      }
    },
  );
}

/**
 * Reads a request stream whole, refusing it past `limitBytes` with BodyTooLargeError. The stream is
 * never destroyed: past the limit the rest is read and dropped, so that the client can finish
 * sending and then read the 413 on an intact connection (a proxy in front can pass it on).
 */
export function readStreamWithin(stream: Readable, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        stream.resume();
        reject(new BodyTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/** Fastify's own error codes for bodies it refused before any handler ran. */
export function isBodyTooLarge(error: { code?: string; statusCode?: number }): boolean {
  return error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413;
}

export function isUnsupportedMediaType(error: { code?: string; statusCode?: number }): boolean {
  return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415;
}

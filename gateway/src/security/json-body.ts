// The JSON body parser of every gateway route: nesting is measured before anything is parsed, by a
// single loop over the text (no recursion, so no input can exhaust the stack), and a body nested
// deeper than MAX_JSON_DEPTH is refused with 400 `invalid_json`. A deeply nested value would
// otherwise pass the parser and overflow the stack later, in validation, serialisation or the
// database. What passes is parsed by Fastify's own parser, which refuses `__proto__` and
// `constructor.prototype` keys (prototype poisoning) as invalid JSON.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../http-errors.ts';

export const MAX_JSON_DEPTH = 256;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of objects and arrays in a JSON text (strings skipped), stopping past `limit`. */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return deepest;
}

export function tooDeeplyNested(): GatewayError {
  return new GatewayError(400, 'invalid_json', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`, {
    max_depth: MAX_JSON_DEPTH,
  });
}

type Done = (error: Error | null, body?: unknown) => void;

/** A content-type parser (parseAs: 'string') for JSON text: depth first, then Fastify's safe parse. */
export function depthCheckedJsonParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: Done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return done(tooDeeplyNested());
    parse(request, text, done);
  };
}

/** Replaces Fastify's application/json parser for every route. Call before any route is added. */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthCheckedJsonParser(app));
}

// Telling storage-api's fixed route words from bucket names. storage-api matches `/object/sign/...`,
// `/object/upload/sign/...`, `/object/list/...`, `/object/list-v2/...`, `/object/info/...`,
// `/object/public/...` and `/object/authenticated/...` before `/object/:bucket/*`, so there a bucket
// named `sign` or `info` cannot be reached through every object route. localbase matches them
// first as well, then looks at the request itself: one that has the shape of the generic object
// route, and not of the fixed one, goes to the bucket of that name.
import type { FastifyRequest } from 'fastify';

/**
 * What a POST or PUT on a fixed-word route looks like. An upload sends the file's own type
 * (multipart, or the raw body's type: storage-js's default is `text/plain`); signing, listing,
 * moving and copying are JSON calls. A JSON body with `x-upsert` (storage-js sends it with every
 * upload, and with `createSignedUploadUrl({upsert: true})`) may be either.
 */
export function requestShape(request: FastifyRequest): 'upload' | 'call' | 'either' {
  const type = request.headers['content-type'];
  const json = type === undefined || type === '' || /^application\/json\b/i.test(type.trim());
  if (!json) return 'upload';
  return request.headers['x-upsert'] === undefined ? 'call' : 'either';
}

/** Signed downloads and uploads carry their token in the URL; a plain download never does. */
export function hasToken(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.token === 'string';
}

/** `/object/<word>/<bucket>/<rest>` read as the generic route: bucket `<word>`, object `<bucket>/<rest>`. */
export function wordAsBucket(word: string, bucket: string, rest: string | undefined): { bucket: string; raw: string } {
  return { bucket: word, raw: rest === undefined || rest === '' ? bucket : `${bucket}/${rest}` };
}

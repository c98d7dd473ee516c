// /render/image: storage-api's image transformations (transform.ts) of a public object, of an object
// the caller may read, or of a signed URL's object with the transformations it was signed with.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import {
  addressOf,
  asCaller,
  asOwnerReading,
  callerOf,
  objectHeaders,
  parse,
  type ObjectAddress,
  type StorageContext,
} from './context.ts';
import { bucketNotFound, objectNotFound } from './errors.ts';
import { findBucket, findObject, type ObjectRow } from './objects.ts';
import { SIGNED_URL_SCOPE_DOWNLOAD, verifyObjectToken } from './signed-tokens.ts';
import {
  appliedTransformationText,
  imageProcessingError,
  parseTransformationText,
  renderImage,
  TRANSFORM_MAX_INPUT_BYTES,
  transformOptions,
  type TransformOptions,
} from './transform.ts';

const tokenQuery = z.object({ token: z.string().min(1) });

export function renderRoutes(app: FastifyInstance, context: StorageContext): void {
  async function render(request: FastifyRequest, reply: FastifyReply, row: ObjectRow, options: TransformOptions) {
    const size = row.metadata?.size;
    if (typeof size === 'number' && size > TRANSFORM_MAX_INPUT_BYTES) {
      throw imageProcessingError(
        `The image is larger than ${TRANSFORM_MAX_INPUT_BYTES} bytes, the transformation limit`,
      );
    }
    const input = await readFile(context.files.path(row.bucket_id, row.id, row.version ?? ''));
    const accept = typeof request.headers.accept === 'string' ? request.headers.accept : undefined;
    const image = await renderImage(input, options, accept);
    objectHeaders(request, reply, row);
    reply.removeHeader('etag');
    reply
      .header('content-type', image.contentType)
      .header('content-length', String(image.body.length))
      .header('vary', 'Accept');
    const applied = appliedTransformationText(options);
    if (applied) reply.header('x-transformations', applied);
    // A transformed picture is a raster image: shown inline unless `?download` asks otherwise.
    if (!('download' in ((request.query as object | undefined) ?? {}))) reply.removeHeader('content-disposition');
    return reply.send(image.body);
  }

  const queryOptions = (request: FastifyRequest) => parse(transformOptions, request.query);

  async function publicRow(address: ObjectAddress) {
    return asOwnerReading(context, async (client) => {
      const bucket = await findBucket(client, address.bucket);
      if (!bucket?.public) throw bucketNotFound();
      return findObject(client, address.bucket, address.name);
    });
  }

  app.get('/render/image/public/:bucket/*', async (request, reply) => {
    const options = queryOptions(request);
    const row = await publicRow(addressOf(request));
    if (!row) throw objectNotFound();
    return render(request, reply, row, options);
  });

  app.get('/render/image/authenticated/:bucket/*', async (request, reply) => {
    const options = queryOptions(request);
    const address = addressOf(request);
    const verified = await callerOf(context, request);
    const row = await asCaller(context, request, verified, (client) =>
      findObject(client, address.bucket, address.name),
    );
    if (!row) throw objectNotFound();
    return render(request, reply, row, options);
  });

  app.get('/render/image/sign/:bucket/*', async (request, reply) => {
    const address = addressOf(request);
    const { token } = parse(tokenQuery, request.query);
    const payload = await verifyObjectToken(context.tokenKeys, token, { ...address, scope: SIGNED_URL_SCOPE_DOWNLOAD });
    const row = await asOwnerReading(context, (client) => findObject(client, address.bucket, address.name));
    if (!row) throw objectNotFound();
    // The transformations are the signed ones: the URL's query cannot change them.
    return render(request, reply, row, parseTransformationText(payload.transformations ?? ''));
  });
}

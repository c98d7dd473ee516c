// Signed URLs as storage-api serves them. Signing (one object, or many with `paths`) needs the API
// key and a caller whose policies let it read the object; the URL then opens that one object
// without a key until it expires. A signed upload URL needs a caller whose policies let it insert
// (or, with `x-upsert`, replace) the object; the upload through it is written for that signer,
// and only while the signer is an account that may still write (signer.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import {
  addressOf,
  asCaller,
  asOwnerReading,
  bucketParams,
  callerOf,
  parse,
  readJson,
  requireApiKey,
  sendObject,
  type ObjectAddress,
  type StorageContext,
} from './context.ts';
import { invalidRequest, objectNotFound } from './errors.ts';
import { findObject, writeObject } from './objects.ts';
import { uploadMode, wordBucketAddress, wordBucketUpload, type ObjectOperations } from './object-routes.ts';
import { hasToken } from './route-words.ts';
import {
  SIGNED_URL_SCOPE_DOWNLOAD,
  SIGNED_URL_SCOPE_UPLOAD,
  signedUrlLifetime,
  signObjectToken,
  UPLOAD_SIGNED_URL_SECONDS,
  verifyObjectToken,
} from './signed-tokens.ts';
import { transformationText, transformOptions } from './transform.ts';

const signBody = z.object({ expiresIn: z.number(), transform: transformOptions.optional() });
const signManyBody = z.object({ expiresIn: z.number(), paths: z.array(z.string()).min(1).max(1000) });
const tokenQuery = z.object({ token: z.string().min(1) });

export const NOT_FOUND_OR_DENIED = 'Either the object does not exist or you do not have access to it';

async function visibleNames(client: pg.PoolClient, bucket: string, names: string[]): Promise<Set<string>> {
  const result = await client.query<{ name: string }>(
    'select name from storage.objects where bucket_id = $1 and name = any($2::text[])',
    [bucket, names],
  );
  return new Set(result.rows.map((row) => row.name));
}

/** storage-api's canUpload: the write is tried under the caller's role and undone. */
async function testUpload(client: pg.PoolClient, address: ObjectAddress, owner: string | null, upsert: boolean) {
  await client.query('savepoint localbase_can_upload');
  await writeObject(
    client,
    { bucketId: address.bucket, name: address.name, owner, version: 'permission-test', metadata: {} },
    upsert ? 'upsert' : 'insert',
  );
  await client.query('rollback to savepoint localbase_can_upload');
}

export function signedRoutes(app: FastifyInstance, context: StorageContext, operations: ObjectOperations): void {
  const { upload, download } = operations;

  async function signDownload(request: FastifyRequest) {
    const verified = await callerOf(context, request);
    const address = addressOf(request);
    const body = parse(signBody, await readJson(request));
    const expiresIn = signedUrlLifetime(body.expiresIn);
    const row = await asCaller(context, request, verified, (client) =>
      findObject(client, address.bucket, address.name),
    );
    if (!row) throw objectNotFound();
    const transformations = body.transform ? transformationText(body.transform) : '';
    const token = await signObjectToken(context.jwtSecret, {
      ...address,
      scope: SIGNED_URL_SCOPE_DOWNLOAD,
      expiresIn,
      transformations,
    });
    const route = transformations ? 'render/image' : 'object';
    return { signedURL: `/${route}/sign/${address.bucket}/${address.name}?token=${token}` };
  }

  app.post('/object/sign/:bucket/*', async (request) => {
    requireApiKey(context, request);
    const generic = await wordBucketUpload(context, request, 'sign');
    if (generic) return upload(request, generic, uploadMode(request));
    return signDownload(request);
  });

  app.post('/object/sign/:bucket', async (request) => {
    const generic = await wordBucketUpload(context, request, 'sign');
    if (generic) return upload(request, generic, uploadMode(request));
    const { bucket } = parse(bucketParams, request.params);
    const verified = await callerOf(context, request);
    const body = parse(signManyBody, await readJson(request));
    const expiresIn = signedUrlLifetime(body.expiresIn);
    const names = body.paths.map((path) => path.replace(/^\/+/, ''));
    const visible = await asCaller(context, request, verified, (client) => visibleNames(client, bucket, names));
    return Promise.all(
      body.paths.map(async (path, index) => {
        const name = names[index] ?? path;
        if (!visible.has(name)) return { error: NOT_FOUND_OR_DENIED, path, signedURL: null };
        const token = await signObjectToken(context.jwtSecret, {
          bucket,
          name,
          scope: SIGNED_URL_SCOPE_DOWNLOAD,
          expiresIn,
        });
        return { error: null, path, signedURL: `/object/sign/${bucket}/${name}?token=${token}` };
      }),
    );
  });

  app.get('/object/sign/:bucket/*', async (request, reply) => {
    if (!hasToken(request)) {
      const generic = await wordBucketAddress(context, request, 'sign', true);
      if (generic) {
        requireApiKey(context, request);
        return download(request, reply, generic);
      }
      throw invalidRequest("querystring must have required property 'token'");
    }
    const address = addressOf(request);
    const { token } = parse(tokenQuery, request.query);
    await verifyObjectToken(context.tokenKeys, token, { ...address, scope: SIGNED_URL_SCOPE_DOWNLOAD });
    const row = await asOwnerReading(context, (client) => findObject(client, address.bucket, address.name));
    if (!row) throw objectNotFound();
    return sendObject(context, request, reply, row);
  });

  app.post('/object/upload/sign/:bucket/*', async (request) => {
    requireApiKey(context, request);
    const generic = await wordBucketUpload(context, request, 'upload');
    // `/object/upload/sign/<rest>` as the generic route: bucket `upload`, object `sign/<rest>`.
    if (generic) return upload(request, { bucket: 'upload', name: `sign/${generic.name}` }, uploadMode(request));
    const verified = await callerOf(context, request);
    const address = addressOf(request);
    const upsert = request.headers['x-upsert'] === 'true';
    const owner = verified.claims.sub ?? null;
    await readJson(request);
    await asCaller(context, request, verified, (client) => testUpload(client, address, owner, upsert));
    const token = await signObjectToken(context.jwtSecret, {
      ...address,
      scope: SIGNED_URL_SCOPE_UPLOAD,
      expiresIn: UPLOAD_SIGNED_URL_SECONDS,
      owner: owner ?? undefined,
      upsert,
    });
    return { url: `/object/upload/sign/${address.bucket}/${address.name}?token=${token}`, token };
  });

  app.put('/object/upload/sign/:bucket/*', async (request) => {
    const address = addressOf(request);
    if (!hasToken(request)) {
      requireApiKey(context, request);
      return upload(request, { bucket: 'upload', name: `sign/${address.bucket}/${address.name}` }, 'update');
    }
    const { token } = parse(tokenQuery, request.query);
    const payload = await verifyObjectToken(context.tokenKeys, token, { ...address, scope: SIGNED_URL_SCOPE_UPLOAD });
    return upload(request, address, payload.upsert ? 'upsert' : 'insert', {
      kind: 'signed',
      owner: payload.owner ?? null,
    });
  });
}

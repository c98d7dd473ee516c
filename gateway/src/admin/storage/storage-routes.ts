// GET /__admin/storage, POST /__admin/storage/cleanup-preview -> {preview_id, objects, bytes},
// POST /__admin/storage/cleanup-apply {preview_id, confirm: true}: deletes exactly the previewed
// objects that are still the same objects (same id and version); without confirm, nothing.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { formPostSchema, pageAnswers, unreadBody } from '../console-schemas.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { confirmationRequired, formBoolean, optionalField } from '../form-body.ts';
import { sendData } from '../respond.ts';
import { PRUNE_RULE } from './prunable.ts';
import { appliedBody, previewBody, storageBody } from './storage-page.ts';
import { readStorageReport } from './storage-report.ts';
import { listStoredObjects, removeObjects, storedObject } from './stored-objects.ts';

const applyBody = z.object({
  preview_id: z.string().min(1).max(64),
  confirm: optionalField(formBoolean).describe('Must be true: without it nothing is deleted.'),
});

const counts = { objects: z.number(), bytes: z.number(), prunable_objects: z.number(), prunable_bytes: z.number() };
const storagePage = z.object({
  rule: z.string().describe('Which objects are prunable, in a sentence.'),
  objects: z.array(
    storedObject.extend({
      user: z.string().describe("The owner, else the account folder's id, else `unowned`."),
      prunable: z.string().nullable().describe('Why it is prunable, or null.'),
    }),
  ),
  per_user: z.array(z.object({ user: z.string(), email: z.string().nullable(), bucket: z.string(), ...counts })),
  totals: z.object(counts),
});
const bucketObject = { bucket: z.string(), name: z.string(), bytes: z.number() };
const previewAnswer = z.object({
  preview_id: z.string(),
  objects: z.array(z.object({ ...bucketObject, reason: z.string() })),
  bytes: z.number(),
  expires_at: z.string(),
  rule: z.string(),
});
const appliedAnswer = z.object({
  ok: z.literal(true),
  preview_id: z.string(),
  deleted: z.array(z.object(bucketObject)),
  skipped: z.array(z.object({ bucket: z.string(), name: z.string(), reason: z.string() })),
  bytes: z.number().describe('Bytes deleted.'),
});

const pageSchema = { response: pageAnswers({ 200: jsonOrPage(storagePage, 'Objects per user and bucket.') }) };
const previewSchema = formPostSchema(unreadBody, previewAnswer, 'What a cleanup would delete (kept 30 minutes).');
const applySchema = formPostSchema(applyBody, appliedAnswer, 'What was deleted, and what was skipped and why.');

const storageRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/storage', { schema: pageSchema }, async (request, reply) => {
    const report = await readStorageReport(context.backend.forRoute());
    const page: z.output<typeof storagePage> = { rule: PRUNE_RULE, ...report };
    return sendData(request, reply, page, () => ({
      title: 'Storage',
      current: '/__admin/storage',
      body: storageBody(report),
    }));
  });

  app.post('/__admin/storage/cleanup-preview', { schema: previewSchema }, async (request, reply) => {
    const report = await readStorageReport(context.backend.forRoute());
    const preview = context.previews.create(
      report.objects
        .filter((object) => object.prunable)
        .map((object) => ({ ...object, reason: object.prunable ?? '' })),
    );
    const answer: z.output<typeof previewAnswer> = {
      preview_id: preview.preview_id,
      objects: preview.objects.map(({ bucket, name, bytes, reason }) => ({ bucket, name, bytes, reason })),
      bytes: preview.bytes,
      expires_at: preview.expires_at,
      rule: PRUNE_RULE,
    };
    return sendData(request, reply, answer, () => ({
      title: 'Cleanup preview',
      current: '/__admin/storage',
      body: previewBody(preview),
    }));
  });

  app.post('/__admin/storage/cleanup-apply', { schema: applySchema }, async (request, reply) => {
    const body = request.body;
    if (body.confirm !== true) {
      throw confirmationRequired('Send "confirm": true to delete the previewed objects; nothing was deleted.');
    }
    const preview = context.previews.take(body.preview_id);
    const backend = context.backend.forRoute();
    const now = new Map(
      (await listStoredObjects(backend)).map((object) => [`${object.bucket}\n${object.name}`, object]),
    );
    const skipped: Array<{ bucket: string; name: string; reason: string }> = [];
    const toDelete = new Map<string, typeof preview.objects>();
    for (const object of preview.objects) {
      const current = now.get(`${object.bucket}\n${object.name}`);
      if (!current) skipped.push({ bucket: object.bucket, name: object.name, reason: 'already gone' });
      else if (current.id !== object.id || current.updated_at !== object.updated_at)
        skipped.push({ bucket: object.bucket, name: object.name, reason: 'replaced since the preview' });
      else toDelete.set(object.bucket, [...(toDelete.get(object.bucket) ?? []), object]);
    }
    const deleted: Array<{ bucket: string; name: string; bytes: number }> = [];
    for (const [bucket, objects] of toDelete) {
      const removed = new Set(
        await removeObjects(
          backend,
          bucket,
          objects.map((object) => object.name),
        ),
      );
      for (const object of objects) {
        if (removed.has(object.name)) deleted.push({ bucket, name: object.name, bytes: object.bytes });
        else skipped.push({ bucket, name: object.name, reason: 'the Storage API did not remove it' });
      }
    }
    const result: z.output<typeof appliedAnswer> = {
      ok: true,
      preview_id: preview.preview_id,
      deleted,
      skipped,
      bytes: deleted.reduce((sum, object) => sum + object.bytes, 0),
    };
    await recordConsoleAction(context, request, 'storage_cleanup', {
      detail: { preview_id: preview.preview_id, deleted: deleted.length, skipped: skipped.length, bytes: result.bytes },
    });
    return sendData(request, reply, result, () => ({
      title: 'Cleanup done',
      current: '/__admin/storage',
      body: appliedBody(result),
    }));
  });
};

export default storageRoutes;

// GET /__admin/storage, POST /__admin/storage/cleanup-preview -> {preview_id, objects, bytes},
// POST /__admin/storage/cleanup-apply {preview_id, confirm: true}: deletes exactly the previewed
// objects that are still the same objects (same id and version); without confirm, nothing.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { formBoolean, optionalField } from '../form-body.ts';
import { sendData } from '../respond.ts';
import { PRUNE_RULE } from './prunable.ts';
import { appliedBody, previewBody, storageBody } from './storage-page.ts';
import { readStorageReport } from './storage-report.ts';
import { listStoredObjects, removeObjects } from './stored-objects.ts';

const applyBody = z.object({ preview_id: z.string().min(1).max(64), confirm: optionalField(formBoolean) });

const storageRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/storage', async (request, reply) => {
    const report = await readStorageReport(context.backend.forRoute());
    return sendData(request, reply, { rule: PRUNE_RULE, ...report }, () => ({
      title: 'Storage',
      current: '/__admin/storage',
      body: storageBody(report),
    }));
  });

  app.post('/__admin/storage/cleanup-preview', async (request, reply) => {
    const report = await readStorageReport(context.backend.forRoute());
    const preview = context.previews.create(
      report.objects
        .filter((object) => object.prunable)
        .map((object) => ({ ...object, reason: object.prunable ?? '' })),
    );
    const answer = {
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

  app.post('/__admin/storage/cleanup-apply', async (request, reply) => {
    const body = parseOrThrow(applyBody, request.body);
    if (body.confirm !== true) {
      throw new GatewayError(
        400,
        'confirmation_required',
        'Send "confirm": true to delete the previewed objects; nothing was deleted.',
      );
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
    const result = {
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

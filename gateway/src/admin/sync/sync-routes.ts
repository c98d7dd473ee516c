// GET /__admin/sync, POST /__admin/sync/repair-user-backup {user_id, dry_run} and
// POST /__admin/sync/restore-archived-backup {archive_id}.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { formBoolean, optionalField } from '../form-body.ts';
import { html } from '../html.ts';
import { sendData } from '../respond.ts';
import { readBackupCandidates } from './backup-candidates.ts';
import { listArchivedBackups, repairUserBackup, restoreArchivedBackup } from './repair.ts';
import { repairResultBody, syncBody } from './sync-page.ts';

const syncQuery = z.object({ user_id: z.uuid().optional() });
const repairBody = z.object({ user_id: z.uuid(), dry_run: formBoolean, confirm: optionalField(formBoolean) });
const restoreBody = z.object({ archive_id: z.uuid(), confirm: optionalField(formBoolean) });

const isFormPost = (request: FastifyRequest) =>
  String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

const syncRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const subjectOf = (request: FastifyRequest) => request.adminSession?.subject ?? 'unknown';

  app.get('/__admin/sync', async (request, reply) => {
    const { user_id: userId } = parseOrThrow(syncQuery, request.query);
    const backend = context.backend.forRoute();
    const [users, archive] = await Promise.all([
      readBackupCandidates(backend, userId ? { userId } : {}),
      listArchivedBackups(backend),
    ]);
    const shownArchive = userId ? archive.filter((item) => item.user_id === userId) : archive;
    return sendData(request, reply, { users, archive: shownArchive }, () => ({
      title: 'Sync',
      current: '/__admin/sync',
      body: syncBody({ users, archive: shownArchive, filtered: Boolean(userId) }),
    }));
  });

  app.post('/__admin/sync/repair-user-backup', async (request, reply) => {
    const body = parseOrThrow(repairBody, request.body);
    if (!body.dry_run && isFormPost(request) && body.confirm !== true) {
      throw new GatewayError(
        400,
        'confirmation_required',
        'Tick the box that confirms the repair; nothing was written.',
      );
    }
    const result = await repairUserBackup(context.backend.forRoute(), {
      userId: body.user_id,
      dryRun: body.dry_run,
      subject: subjectOf(request),
    });
    if (!result.dry_run) {
      await recordConsoleAction(context, request, 'repair_backup', {
        targetUserId: body.user_id,
        detail: {
          changes: result.changes.length,
          archived_backup_id: result.archived_backup_id ?? null,
          new_backup_id: result.new_backup_id ?? null,
        },
      });
    }
    return sendData(request, reply, result, () => ({
      title: 'Repair',
      current: '/__admin/sync',
      body: repairResultBody(result),
    }));
  });

  app.post('/__admin/sync/restore-archived-backup', async (request, reply) => {
    const body = parseOrThrow(restoreBody, request.body);
    if (isFormPost(request) && body.confirm !== true) {
      throw new GatewayError(
        400,
        'confirmation_required',
        'Tick the box that confirms the restore; nothing was changed.',
      );
    }
    const restored = await restoreArchivedBackup(context.backend.forRoute(), body.archive_id);
    await recordConsoleAction(context, request, 'restore_backup', {
      detail: {
        archive_id: body.archive_id,
        restored_backup_id: restored.restored_backup_id,
        removed_backup_id: restored.removed_backup_id,
      },
    });
    const result = { ok: true, ...restored };
    return sendData(request, reply, result, () => ({
      title: 'Restored',
      current: '/__admin/sync',
      body: html`<h1>Restored</h1><p class="banner banner-ok">Backup <code>${restored.restored_backup_id}</code> is back${restored.removed_backup_id ? html`; the backup the repair wrote (<code>${restored.removed_backup_id}</code>) was removed` : ''}.</p><p><a href="/__admin/sync">Back to sync</a></p>`,
    }));
  });
};

export default syncRoutes;

// GET /__admin/sync, POST /__admin/sync/repair-user-backup {user_id, dry_run} and
// POST /__admin/sync/restore-archived-backup {archive_id}.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { formPostSchema, pageAnswers } from '../console-schemas.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { confirmationRequired, formBoolean, isFormPost, optionalField } from '../form-body.ts';
import { html } from '../html.ts';
import { sendData } from '../respond.ts';
import { readBackupCandidates } from './backup-candidates.ts';
import { archivedRow, listArchivedBackups, repairUserBackup, restoreArchivedBackup } from './repair.ts';
import { repairResultBody, syncBody } from './sync-page.ts';

const syncQuery = z.object({ user_id: z.uuid().optional().describe("Only this user's backups and archive.") });
const confirmField = optionalField(formBoolean).describe('A form must tick it; JSON needs none.');
const repairBody = z.object({ user_id: z.uuid(), dry_run: formBoolean, confirm: confirmField });
const restoreBody = z.object({ archive_id: z.uuid(), confirm: confirmField });

const candidate = z.object({
  kind: z.enum(['row', 'file']),
  id: z.string().describe("The row's id, or the file's object name in the backups bucket."),
  source: z.string().nullable(),
  app_version: z.string().nullable(),
  richness: z.number().nullable().describe('null when a file could not be read as a JSON object.'),
  bytes: z.number(),
  created_at: z.string(),
  problem: z.string().optional(),
});
const syncPage = z.object({
  users: z.array(
    z.object({
      user_id: z.string(),
      email: z.string().nullable(),
      candidates: z.array(candidate).describe('Best first.'),
      current: candidate.nullable().describe('The newest row: what /__auth/backup/latest returns.'),
      best: candidate.nullable().describe('What /__auth/backup/best returns (rows only).'),
      winner: candidate.nullable().describe('The richest of all candidates.'),
      repair_needed: z.boolean(),
      explanation: z.string(),
    }),
  ),
  archive: z.array(archivedRow),
});
const repairAnswer = z.object({
  dry_run: z.boolean(),
  user_id: z.string(),
  changes: z.array(
    z.object({
      action: z.enum(['archive', 'write']),
      description: z.string(),
      backup: candidate.pick({ kind: true, id: true, richness: true, created_at: true }),
    }),
  ),
  explanation: z.string(),
  archived_backup_id: z.string().nullable(),
  new_backup_id: z.string().nullable(),
  restore: z
    .object({
      method: z.literal('POST'),
      path: z.string(),
      body: z.object({ archive_id: z.string() }),
      text: z.string(),
    })
    .nullable()
    .describe('How to undo the repair, once it archived a backup.'),
});
const restoreAnswer = z.object({
  ok: z.literal(true),
  restored_backup_id: z.string(),
  removed_backup_id: z.string().nullable(),
});

const pageSchema = {
  querystring: syncQuery,
  response: pageAnswers({ 200: jsonOrPage(syncPage, "Every user's backups and which one wins, and the archive.") }),
};
const repairSchema = formPostSchema(repairBody, repairAnswer, 'The plan (dry run) or what was done.');
const restoreSchema = formPostSchema(restoreBody, restoreAnswer, 'The archived backup is current again.');

const syncRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const subjectOf = (request: FastifyRequest) => request.adminSession?.subject ?? 'unknown';

  app.get('/__admin/sync', { schema: pageSchema }, async (request, reply) => {
    const { user_id: userId } = request.query;
    const backend = context.backend.forRoute();
    const [users, archive] = await Promise.all([
      readBackupCandidates(backend, userId ? { userId } : {}),
      listArchivedBackups(backend),
    ]);
    const shownArchive = userId ? archive.filter((item) => item.user_id === userId) : archive;
    const page: z.output<typeof syncPage> = { users, archive: shownArchive };
    return sendData(request, reply, page, () => ({
      title: 'Sync',
      current: '/__admin/sync',
      body: syncBody({ users, archive: shownArchive, filtered: Boolean(userId) }),
    }));
  });

  app.post('/__admin/sync/repair-user-backup', { schema: repairSchema }, async (request, reply) => {
    const body = request.body;
    if (!body.dry_run && isFormPost(request) && body.confirm !== true) {
      throw confirmationRequired('Tick the box that confirms the repair; nothing was written.');
    }
    const result: z.output<typeof repairAnswer> = await repairUserBackup(context.backend.forRoute(), {
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

  app.post('/__admin/sync/restore-archived-backup', { schema: restoreSchema }, async (request, reply) => {
    const body = request.body;
    if (isFormPost(request) && body.confirm !== true) {
      throw confirmationRequired('Tick the box that confirms the restore; nothing was changed.');
    }
    const restored = await restoreArchivedBackup(context.backend.forRoute(), body.archive_id);
    await recordConsoleAction(context, request, 'restore_backup', {
      detail: {
        archive_id: body.archive_id,
        restored_backup_id: restored.restored_backup_id,
        removed_backup_id: restored.removed_backup_id,
      },
    });
    const result: z.output<typeof restoreAnswer> = { ok: true, ...restored };
    return sendData(request, reply, result, () => ({
      title: 'Restored',
      current: '/__admin/sync',
      body: html`<h1>Restored</h1><p class="banner banner-ok">Backup <code>${restored.restored_backup_id}</code> is back${restored.removed_backup_id ? html`; the backup the repair wrote (<code>${restored.removed_backup_id}</code>) was removed` : ''}.</p><p><a href="/__admin/sync">Back to sync</a></p>`,
    }));
  });
};

export default syncRoutes;

// The backup wrappers (bearer token): store, read best/latest, snapshot, import, restore-best.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendClient } from '../backend/backend-client.ts';
import { GatewayError, parseOrThrow } from '../http-errors.ts';
import { requireBearer } from './bearer.ts';
import { findBackup, storeBackup, uploadSnapshotObject } from './backups.ts';

export const BACKUP_BODY_LIMIT = 20 * 1024 * 1024;

const payload = z.record(z.string(), z.unknown());
const appVersion = z.string().max(64).nullish().transform((value) => value ?? null);
const backupBody = z.object({ payload, source: z.enum(['manual', 'auto']).default('manual'), app_version: appVersion });
const payloadBody = z.object({ payload, app_version: appVersion });

const noBackup = () => new GatewayError(404, 'no_backup', 'There is no backup for this account yet.');

const backupRoutes: FastifyPluginAsync<{ backend: BackendClient }> = async (app, { backend }) => {
  const bodyLimit = { bodyLimit: BACKUP_BODY_LIMIT };

  app.get('/__auth/backup/best', async (request) => {
    const backup = await findBackup(backend, requireBearer(request), 'best');
    if (!backup) throw noBackup();
    return { ok: true, backup };
  });

  app.get('/__auth/backup/latest', async (request) => {
    const backup = await findBackup(backend, requireBearer(request), 'latest');
    if (!backup) throw noBackup();
    return { ok: true, backup };
  });

  app.post('/__auth/backup', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(backupBody, request.body);
    const backup = await storeBackup(backend, caller, { payload: body.payload, source: body.source, appVersion: body.app_version });
    return reply.code(201).send({ ok: true, backup });
  });

  app.post('/__auth/snapshot', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(payloadBody, request.body);
    const object = await uploadSnapshotObject(backend, caller, body.payload);
    const backup = await storeBackup(backend, caller, { payload: body.payload, source: 'snapshot', appVersion: body.app_version });
    return reply.code(201).send({ ok: true, backup, object });
  });

  app.post('/__auth/import', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(payloadBody, request.body);
    const backup = await storeBackup(backend, caller, { payload: body.payload, source: 'import', appVersion: body.app_version });
    return reply.code(201).send({ ok: true, backup });
  });

  // Hands the best backup back to the app and records the restore as a new (newest) backup, so
  // "latest" afterwards is what the app now holds.
  app.post('/__auth/restore-best-backup', async (request) => {
    const caller = requireBearer(request);
    const best = await findBackup(backend, caller, 'best');
    if (!best) throw noBackup();
    const recorded = await storeBackup(backend, caller, { payload: best.payload, source: 'restore', appVersion: best.app_version });
    const { payload: restored, ...restoredFrom } = best;
    return { ok: true, restored_from: restoredFrom, backup: recorded, payload: restored };
  });
};

export default backupRoutes;

// The backup wrappers (bearer token): store, read best/latest, snapshot, import, restore-best.
// Reading best or latest of an account without a backup is an empty answer (200, backup null), as a
// new account's first load asks it; restoring with nothing to restore is refused (404 no_backup).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { backupFound, backupRestored, backupStored, snapshotStored } from '#contracts/auth-answers.ts';
import type { BackendClient } from '../backend/backend-client.ts';
import { GatewayError } from '../http-errors.ts';
import { withErrorBody } from '../route-schemas.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { databaseJsonObject, databaseText } from '../security/database-values.ts';
import { bearerBeforeBody, requireBearer } from './bearer.ts';
import { findBackup, restoreBestBackup, storeBackup, storeSnapshot } from './backups.ts';

/** 8 MiB: half of what the backend's JSON limit (16 MiB) accepts, so a backup is never refused there. */
export const BACKUP_BODY_LIMIT = BODY_LIMITS.backup;

// A payload becomes a jsonb row: no NUL characters or unpaired surrogates anywhere in it.
const payload = databaseJsonObject;
const appVersion = databaseText(64)
  .nullish()
  .transform((value) => value ?? null);
const backupBody = z.object({ payload, source: z.enum(['manual', 'auto']).default('manual'), app_version: appVersion });
const payloadBody = z.object({ payload, app_version: appVersion });

const noBackup = () => new GatewayError(404, 'no_backup', 'There is no backup for this account yet.');

const backupRoutes: FastifyPluginAsyncZod<{ backend: BackendClient }> = async (app, options) => {
  const writes = { bodyLimit: BACKUP_BODY_LIMIT, preValidation: bearerBeforeBody };
  const route = () => options.backend.forRoute();
  const found = { schema: { response: withErrorBody({ 200: backupFound }) } };
  const stored = withErrorBody({ 201: backupStored });

  app.get('/__auth/backup/best', found, async (request) => ({
    ok: true as const,
    backup: await findBackup(route(), requireBearer(request), 'best'),
  }));

  app.get('/__auth/backup/latest', found, async (request) => ({
    ok: true as const,
    backup: await findBackup(route(), requireBearer(request), 'latest'),
  }));

  app.post('/__auth/backup', { ...writes, schema: { body: backupBody, response: stored } }, async (request, reply) => {
    const caller = requireBearer(request);
    const body = request.body;
    const backup = await storeBackup(route(), caller, {
      payload: body.payload,
      source: body.source,
      appVersion: body.app_version,
    });
    return reply.code(201).send({ ok: true as const, backup });
  });

  const snapshotSchema = { body: payloadBody, response: withErrorBody({ 201: snapshotStored }) };
  app.post('/__auth/snapshot', { ...writes, schema: snapshotSchema }, async (request, reply) => {
    const caller = requireBearer(request);
    const body = request.body;
    return reply
      .code(201)
      .send({ ok: true as const, ...(await storeSnapshot(route(), caller, body.payload, body.app_version)) });
  });

  app.post('/__auth/import', { ...writes, schema: { body: payloadBody, response: stored } }, async (request, reply) => {
    const caller = requireBearer(request);
    const body = request.body;
    const backup = await storeBackup(route(), caller, {
      payload: body.payload,
      source: 'import',
      appVersion: body.app_version,
    });
    return reply.code(201).send({ ok: true as const, backup });
  });

  // The body is not read: the best backup is chosen by the server.
  const restoreSchema = { body: z.unknown(), response: withErrorBody({ 200: backupRestored }) };
  app.post('/__auth/restore-best-backup', { ...writes, schema: restoreSchema }, async (request) => {
    const restored = await restoreBestBackup(route(), requireBearer(request));
    if (!restored) throw noBackup();
    return { ok: true as const, ...restored };
  });
};

export default backupRoutes;

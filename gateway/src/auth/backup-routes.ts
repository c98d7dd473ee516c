// The backup wrappers (bearer token): store, read best/latest, snapshot, import, restore-best.
// Reading best or latest of an account without a backup is an empty answer (200, backup null), as a
// new account's first load asks it; restoring with nothing to restore is refused (404 no_backup).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendClient } from '../backend/backend-client.ts';
import { GatewayError, parseOrThrow } from '../http-errors.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { databaseJsonObject, databaseText } from '../security/database-values.ts';
import { requireBearer } from './bearer.ts';
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

const backupRoutes: FastifyPluginAsync<{ backend: BackendClient }> = async (app, options) => {
  const bodyLimit = { bodyLimit: BACKUP_BODY_LIMIT };
  const route = () => options.backend.forRoute();

  app.get('/__auth/backup/best', async (request) => ({
    ok: true,
    backup: await findBackup(route(), requireBearer(request), 'best'),
  }));

  app.get('/__auth/backup/latest', async (request) => ({
    ok: true,
    backup: await findBackup(route(), requireBearer(request), 'latest'),
  }));

  app.post('/__auth/backup', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(backupBody, request.body);
    const backup = await storeBackup(route(), caller, {
      payload: body.payload,
      source: body.source,
      appVersion: body.app_version,
    });
    return reply.code(201).send({ ok: true, backup });
  });

  app.post('/__auth/snapshot', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(payloadBody, request.body);
    return reply
      .code(201)
      .send({ ok: true, ...(await storeSnapshot(route(), caller, body.payload, body.app_version)) });
  });

  app.post('/__auth/import', bodyLimit, async (request, reply) => {
    const caller = requireBearer(request);
    const body = parseOrThrow(payloadBody, request.body);
    const backup = await storeBackup(route(), caller, {
      payload: body.payload,
      source: 'import',
      appVersion: body.app_version,
    });
    return reply.code(201).send({ ok: true, backup });
  });

  app.post('/__auth/restore-best-backup', bodyLimit, async (request) => {
    const restored = await restoreBestBackup(route(), requireBearer(request));
    if (!restored) throw noBackup();
    return { ok: true, ...restored };
  });
};

export default backupRoutes;

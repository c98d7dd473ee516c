// Self-update: /api/update-capabilities, /api/check-update, /api/update-status and /api/update-now
// (docs/api.md#self-update). They belong to the owner: an admin cookie or a loopback caller
// (strictly: security/same-origin.ts). /api/update-capabilities tells the web app whether this
// caller is the owner, so it shows the controls only then; to anyone else the other three answer
// 403 and say nothing about the checkout (its changed files, branch, commits). Local changes are
// stashed only with confirm=1, and never discarded. update-now starts the detached updater
// (run-update.ts). Both credentials are ambient, so update-now is same-origin only.
import { mkdir } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { updateCapabilities, updateCheck, updateStarted } from '#contracts/gateway-answers.ts';
import type { AdminGate } from '../admin/admin-cookie.ts';
import type { AdminStanding } from '../admin/admin-standing.ts';
import type { UpdateSettings } from '../config.ts';
import { GatewayError, sendError } from '../http-errors.ts';
import { withErrorBody } from '../route-schemas.ts';
import { RemoteCheck } from './check-update.ts';
import { currentBranch, dirtyFiles, GitError, readHead } from './git.ts';
import { launchDetachedUpdate } from './launch-update.ts';
import { isServerOwner } from './update-owner.ts';
import type { UpdatePlan } from './run-update.ts';
import {
  acquireUpdateLock,
  readUpdateState,
  updateStateSchema,
  releaseUpdateLock,
  updateFiles,
  updateInProgress,
} from './update-state.ts';

export interface UpdateRoutesOptions {
  repoDir: string;
  logDir: string;
  settings: UpdateSettings;
  adminGate: AdminGate;
  /** Whether an admin cookie's account still stands (the update routes belong to admins only while they do). */
  adminStanding: AdminStanding;
  /** The clock of the once-a-minute fetch (tests). */
  now?: (() => number) | undefined;
}

const updateNowQuery = z.object({ confirm: z.enum(['1', 'true']).optional() });

/** GET /api/update-status. */
const updateStatus = z.object({
  ok: z.literal(true),
  authorized: z.literal(true),
  admin_available: z.boolean(),
  dirty: z.boolean(),
  dirty_count: z.number(),
  dirty_files: z.array(z.string()),
  branch: z.string().nullable(),
  update_in_progress: z.boolean(),
  last_update: updateStateSchema.nullable(),
});

const updateRoutes: FastifyPluginAsyncZod<UpdateRoutesOptions> = async (app, options) => {
  const files = updateFiles(options.logDir);
  const isAuthorized = (request: FastifyRequest) => isServerOwner(options.adminStanding, request);

  const remoteCheck = new RemoteCheck(options.repoDir, options.settings.remote, options.settings.branch, options.now);

  const gitFailure = (error: unknown) =>
    error instanceof GitError ? new GatewayError(500, 'git_failed', error.message) : error;

  const ownerOnly = () =>
    new GatewayError(
      403,
      'forbidden',
      'Updates belong to the computer running studyhall (loopback) or an admin session.',
      {
        admin_available: options.adminGate.ready,
      },
    );

  const answers = <T extends z.ZodType>(answer: T) => ({ schema: { response: withErrorBody({ 200: answer }) } });

  app.get('/api/update-capabilities', answers(updateCapabilities), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return { can_update: await isAuthorized(request), admin_available: options.adminGate.ready };
  });

  app.get('/api/check-update', answers(updateCheck), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!(await isAuthorized(request))) throw ownerOnly();
    try {
      return await remoteCheck.check();
    } catch (error) {
      if (error instanceof GitError && error.args[0] === 'fetch') {
        throw new GatewayError(
          502,
          'remote_unreachable',
          `Could not fetch ${options.settings.remote}: ${error.stderr.trim()}`,
        );
      }
      throw gitFailure(error);
    }
  });

  app.get('/api/update-status', answers(updateStatus), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!(await isAuthorized(request))) throw ownerOnly();
    try {
      const [dirty, branch, inProgress, lastUpdate] = await Promise.all([
        dirtyFiles(options.repoDir),
        currentBranch(options.repoDir),
        updateInProgress(files),
        readUpdateState(files),
      ]);
      return {
        ok: true as const,
        authorized: true as const,
        admin_available: options.adminGate.ready,
        dirty: dirty.length > 0,
        dirty_count: dirty.length,
        dirty_files: dirty,
        branch,
        update_in_progress: inProgress,
        last_update: lastUpdate,
      };
    } catch (error) {
      throw gitFailure(error);
    }
  });

  const updateNow = {
    config: { ambientAuthorisation: true },
    // Only the owner learns anything, what the query lacks included.
    preValidation: async (request: FastifyRequest) => {
      if (!(await isAuthorized(request))) throw ownerOnly();
    },
    schema: {
      querystring: updateNowQuery,
      body: z.unknown().describe('Not read: confirm=1 in the query stashes local changes.'),
      response: withErrorBody({ 202: updateStarted }),
    },
  };
  app.post('/api/update-now', updateNow, async (request, reply) => {
    const { confirm } = request.query;
    if (await updateInProgress(files)) {
      return sendError(reply, 409, 'update_in_progress', 'An update is already running; poll /api/update-status.');
    }
    const dirty = await dirtyFiles(options.repoDir).catch((error: unknown) => {
      throw gitFailure(error);
    });
    if (dirty.length > 0 && !confirm) {
      return sendError(
        reply,
        409,
        'confirmation_required',
        'The checkout has local changes; retry with confirm=1 to stash them (they are kept, never discarded).',
        {
          dirty_count: dirty.length,
          dirty_files: dirty,
        },
      );
    }
    await mkdir(options.logDir, { recursive: true });
    if (!(await acquireUpdateLock(files, process.pid))) {
      return sendError(reply, 409, 'update_in_progress', 'An update is already running; poll /api/update-status.');
    }
    try {
      const plan: UpdatePlan = {
        repoDir: options.repoDir,
        logDir: options.logDir,
        remote: options.settings.remote,
        branch: options.settings.branch ?? (await currentBranch(options.repoDir)),
        stash: dirty.length > 0,
        installCommand: options.settings.installCommand,
        buildCommand: options.settings.buildCommand,
        restart: options.settings.restart,
        gatewayPid: process.pid,
        fromSha: (await readHead(options.repoDir))?.sha ?? null,
      };
      await launchDetachedUpdate(plan, files);
      return reply.code(202).send({
        ok: true as const,
        started: true as const,
        stashing: plan.stash,
        from_sha: plan.fromSha,
        log: files.log,
        poll: '/api/version',
      });
    } catch (error) {
      await releaseUpdateLock(files);
      throw gitFailure(error);
    }
  });
};

export default updateRoutes;

// GET /__admin/reports: the open reports, oldest first, with their context.
// POST /__admin/reports/:id/resolve {resolution, note?, ban_for?}: resolves one (see reports.ts).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { sendData } from '../respond.ts';
import { BAN_DURATIONS, type BanDuration } from '../users/users.ts';
import { reportsBody } from './reports-page.ts';
import { listOpenReports, resolveReport } from './reports.ts';

const reportParams = z.object({ id: z.uuid({ message: 'must be a report id' }) });
const resolveBody = z.object({
  resolution: z.enum(['dismiss', 'delete_message', 'remove_member', 'ban'], {
    message: 'choose dismiss, delete_message, remove_member or ban',
  }),
  note: z.string().max(2000).optional(),
  ban_for: z.enum(Object.keys(BAN_DURATIONS) as [BanDuration, ...BanDuration[]]).optional(),
});

const NOTICES = {
  dismiss: 'The report was dismissed.',
  delete_message: 'The message was deleted for everyone.',
  remove_member: 'The student was removed from the group.',
  ban: 'The student was banned.',
} as const;

const reportsRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/reports', async (request, reply) => {
    const reports = await listOpenReports(consoleBackend(context, request));
    return sendData(request, reply, { reports }, () => ({
      title: 'Reports',
      current: '/__admin/reports',
      body: reportsBody(reports),
    }));
  });

  app.post('/__admin/reports/:id/resolve', async (request, reply) => {
    const { id } = parseOrThrow(reportParams, request.params);
    const body = parseOrThrow(resolveBody, request.body ?? {});
    const backend = consoleBackend(context, request);
    const { bannedUserId } = await resolveReport(backend, {
      reportId: id,
      resolution: body.resolution,
      note: body.note?.trim() ?? '',
      ...(body.ban_for ? { banFor: body.ban_for } : {}),
    });
    // The resolution is in the database's log already (resolve_report wrote it, naming this admin);
    // the ban went through the auth API, which the database cannot see.
    await mirrorConsoleAction(context, request, `resolve_report:${body.resolution}`, {
      detail: { report_id: id, ...(body.note?.trim() ? { note: body.note.trim() } : {}) },
    });
    if (bannedUserId)
      await recordConsoleAction(context, request, 'ban_user', {
        targetUserId: bannedUserId,
        detail: { duration: body.ban_for ?? '24h', report_id: id },
      });
    const reports = await listOpenReports(backend);
    return sendData(request, reply, { ok: true, resolved: { id, resolution: body.resolution }, reports }, () => ({
      title: 'Reports',
      current: '/__admin/reports',
      body: reportsBody(reports, NOTICES[body.resolution]),
    }));
  });
};

export default reportsRoutes;

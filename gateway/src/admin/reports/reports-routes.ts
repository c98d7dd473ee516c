// GET /__admin/reports: the open reports, oldest first, with their context.
// POST /__admin/reports/:id/resolve {resolution, note?, ban_for?}: resolves one (see reports.ts).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { formFields, formPostSchema, pageAnswers } from '../console-schemas.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { sendData } from '../respond.ts';
import { BAN_DURATIONS, type BanDuration } from '../users/users.ts';
import { reportsBody } from './reports-page.ts';
import { listOpenReports, openReport, resolveReport } from './reports.ts';

const reportParams = z.object({ id: z.uuid({ message: 'must be a report id' }) });
const resolveBody = formFields(
  z.object({
    resolution: z.enum(['dismiss', 'delete_message', 'remove_member', 'ban'], {
      message: 'choose dismiss, delete_message, remove_member or ban',
    }),
    note: z.string().max(2000).optional(),
    ban_for: z.enum(Object.keys(BAN_DURATIONS) as [BanDuration, ...BanDuration[]]).optional(),
  }),
);

const reportsPage = z.object({ reports: z.array(openReport).describe('The open reports, oldest first.') });
const resolvedPage = reportsPage.extend({
  ok: z.literal(true),
  resolved: z.object({ id: z.string(), resolution: z.enum(['dismiss', 'delete_message', 'remove_member', 'ban']) }),
});
const pageSchema = { response: pageAnswers({ 200: jsonOrPage(reportsPage, 'The open reports with their context.') }) };
const resolveSchema = {
  params: reportParams,
  ...formPostSchema(resolveBody, resolvedPage, 'The resolution, and the reports still open.'),
};

const NOTICES = {
  dismiss: 'The report was dismissed.',
  delete_message: 'The message was deleted for everyone.',
  remove_member: 'The student was removed from the group.',
  ban: 'The student was banned.',
} as const;

const reportsRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/reports', { schema: pageSchema }, async (request, reply) => {
    const reports = await listOpenReports(consoleBackend(context, request));
    const page: z.output<typeof reportsPage> = { reports };
    return sendData(request, reply, page, () => ({
      title: 'Reports',
      current: '/__admin/reports',
      body: reportsBody(reports),
    }));
  });

  app.post('/__admin/reports/:id/resolve', { schema: resolveSchema }, async (request, reply) => {
    const { id } = request.params;
    const body = request.body;
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
    const page: z.output<typeof resolvedPage> = { ok: true, resolved: { id, resolution: body.resolution }, reports };
    return sendData(request, reply, page, () => ({
      title: 'Reports',
      current: '/__admin/reports',
      body: reportsBody(reports, NOTICES[body.resolution]),
    }));
  });
};

export default reportsRoutes;

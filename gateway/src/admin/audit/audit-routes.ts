// GET /__admin/audit: the newest entries of the database's audit log (read only: nobody can edit it).
import type { FastifyPluginAsync } from 'fastify';
import type { AdminContext } from '../admin-context.ts';
import { sendData } from '../respond.ts';
import { auditBody } from './audit-page.ts';
import { readAuditRows } from './audit-log-rows.ts';

const AUDIT_PAGE_LIMIT = 200;

const auditRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/audit', async (request, reply) => {
    const entries = await readAuditRows(context.backend.forRoute(), AUDIT_PAGE_LIMIT);
    return sendData(request, reply, { entries }, () => ({
      title: 'Audit log',
      current: '/__admin/audit',
      body: auditBody(entries, AUDIT_PAGE_LIMIT),
    }));
  });
};

export default auditRoutes;

// GET /__admin/verify: runs the suite and shows it (HTML), or answers it as JSON
// (`Accept: application/json`, or `?format=json` from the page's link).
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { sendData } from '../respond.ts';
import { runVerify } from './run-verify.ts';
import { verifyBody } from './verify-page.ts';

const verifyQuery = z.object({ format: z.enum(['json', 'html']).optional() });

const verifyRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/verify', async (request, reply) => {
    const { format } = parseOrThrow(verifyQuery, request.query);
    const report = await runVerify(context, app);
    if (format === 'json') return reply.send(report);
    return sendData(request, reply, report, () => ({
      title: 'Verify',
      current: '/__admin/verify',
      body: verifyBody(report),
    }));
  });
};

export default verifyRoutes;

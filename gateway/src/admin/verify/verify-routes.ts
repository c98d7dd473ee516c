// GET /__admin/verify: the last run of the suite (the first view runs it once), as a page or as
// JSON (`Accept: application/json`, or `?format=json` from the page's link); POST /__admin/verify
// runs it again (a form sends the browser back to the page; JSON gets the new report). The browser
// proof's newest report is read when the report is shown, not when the checks ran.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { runVerify, type VerifyReport } from './run-verify.ts';
import { verifyBody } from './verify-page.ts';
import { VerifyRuns } from './verify-runs.ts';

const verifyQuery = z.object({ format: z.enum(['json', 'html']).optional() });

const verifyRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const runs = new VerifyRuns(() => runVerify(context, app));
  const withProof = (report: VerifyReport): VerifyReport => ({
    ...report,
    browser_proof: { ...report.browser_proof, last_report: context.proofs.reports()[0] ?? null },
  });

  app.get('/__admin/verify', async (request, reply) => {
    const { format } = parseOrThrow(verifyQuery, request.query);
    const report = withProof(await runs.latest());
    if (format === 'json') return reply.send(report);
    return sendData(request, reply, report, () => ({
      title: 'Verify',
      current: '/__admin/verify',
      body: verifyBody(report, context.tuning.now()),
    }));
  });

  app.post('/__admin/verify', async (request, reply) => {
    const report = withProof(await runs.again());
    if (wantsHtml(request)) return reply.code(303).header('location', '/__admin/verify').send();
    return reply.send(report);
  });
};

export default verifyRoutes;

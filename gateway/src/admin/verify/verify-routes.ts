// GET /__admin/verify: the last run of the suite (the first view runs it once), as a page or as
// JSON (`Accept: application/json`, or `?format=json` from the page's link); POST /__admin/verify
// runs it again (a form sends the browser back to the page; JSON gets the new report). The browser
// proof's newest report is read when the report is shown, not when the checks ran.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { verifyReport } from '#contracts/admin-api.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleAnswers, FORM_OR_JSON, pageAnswers, seeOther, unreadBody } from '../console-schemas.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { runVerify, type VerifyReport } from './run-verify.ts';
import { verifyBody } from './verify-page.ts';
import { VerifyRuns } from './verify-runs.ts';

const verifyQuery = z.object({
  format: z.enum(['json', 'html']).optional().describe('json: the report as JSON whatever Accept says.'),
});

const showSchema = {
  querystring: verifyQuery,
  response: pageAnswers({ 200: jsonOrPage(verifyReport, 'The last run of the checks (the first view runs them).') }),
};
const runSchema = {
  consumes: FORM_OR_JSON,
  body: unreadBody,
  response: consoleAnswers({
    200: verifyReport,
    303: seeOther('Ran again: back to /__admin/verify, for a browser.'),
  }),
};

const verifyRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const runs = new VerifyRuns(() => runVerify(context, app));
  const withProof = (report: VerifyReport): VerifyReport => ({
    ...report,
    browser_proof: { ...report.browser_proof, last_report: context.proofs.reports()[0] ?? null },
  });

  app.get('/__admin/verify', { schema: showSchema }, async (request, reply) => {
    const { format } = request.query;
    const report = withProof(await runs.latest());
    if (format === 'json') return reply.send(report);
    return sendData(request, reply, report, () => ({
      title: 'Verify',
      current: '/__admin/verify',
      body: verifyBody(report, context.tuning.now()),
    }));
  });

  app.post('/__admin/verify', { schema: runSchema }, async (request, reply) => {
    const report = withProof(await runs.again());
    if (wantsHtml(request)) return reply.code(303).header('location', '/__admin/verify').send();
    return reply.send(report);
  });
};

export default verifyRoutes;

// GET /__admin/browser-proof (the last run's result, or on the first view a page that runs it),
// POST /__admin/browser-proof (run again: a page with a fresh run token), POST
// /__admin/browser-proof/account (the run's temporary account, for the page's login round trip) and
// POST /__admin/browser-proof-result (the report; authorised by the run token alone). A run is a
// check, not an action on anyone: it is kept with the reports, not in the audit log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { browserProofPage, proofReport, type BrowserProofPage } from '#contracts/admin-api.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleAnswers, FORM_OR_JSON, pageAnswers, unreadBody } from '../console-schemas.ts';
import { sendData } from '../respond.ts';
import { proofBody } from './proof-page.ts';
import { proofReportBody } from './proof-runs.ts';
import { PROOF_SCRIPT } from './proof-script.ts';

const accountBody = z.object({ run_token: z.string().min(43).max(64) });
const temporaryAccount = z
  .object({ user_id: z.string(), email: z.string(), password: z.string() })
  .describe("The run's temporary account, deleted when the run ends.");

const proofPage = jsonOrPage(browserProofPage, 'The proof page (with a fresh run token when it runs), or its reports.');
const pageSchema = { response: pageAnswers({ 200: proofPage }) };
const runSchema = { consumes: FORM_OR_JSON, body: unreadBody, response: consoleAnswers({ 200: proofPage }) };
const accountSchema = {
  consumes: FORM_OR_JSON,
  body: accountBody,
  response: consoleAnswers({ 200: temporaryAccount }),
};
const resultSchema = { consumes: FORM_OR_JSON, body: proofReportBody, response: consoleAnswers({ 201: proofReport }) };

const browserProofRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const show = (request: FastifyRequest, reply: FastifyReply, startRun: boolean) => {
    const run = startRun ? context.proofs.start(request.adminSession?.subject ?? 'unknown') : undefined;
    const reports = context.proofs.reports();
    const page: BrowserProofPage = {
      run: run ? { token: run.token, run_id: run.runId, expires_at: run.expiresAt } : null,
      last_reports: reports,
    };
    return sendData(request, reply, page, () => ({
      title: 'Browser proof',
      current: '/__admin/browser-proof',
      body: proofBody({ run, reports, nowMs: context.tuning.now() }),
      scripts: run ? [PROOF_SCRIPT] : [],
    }));
  };

  app.get('/__admin/browser-proof', { schema: pageSchema }, async (request, reply) =>
    show(request, reply, context.proofs.reports().length === 0),
  );

  app.post('/__admin/browser-proof', { schema: runSchema }, async (request, reply) => show(request, reply, true));

  app.post('/__admin/browser-proof/account', { schema: accountSchema }, async (request) => {
    const { run_token: token } = request.body;
    const account = await context.proofs.account(token);
    return { user_id: account.id, email: account.email, password: account.password };
  });

  const resultOptions = { config: { adminAccess: 'run-token' as const }, schema: resultSchema };
  app.post('/__admin/browser-proof-result', resultOptions, async (request, reply) => {
    const report = await context.proofs.finish(request.body);
    return reply.code(201).send(report);
  });
};

export default browserProofRoutes;

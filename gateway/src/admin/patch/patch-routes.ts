// GET /__admin/patch (the patch manager), GET /__admin/patch/<file>.sql (a download),
// POST /__admin/apply-sql (a served patch or pasted SQL, through the Management API) and
// GET /__admin/schema (app-complete.sql, the fresh-install schema, as a download).
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { jsonOrPage, nonJson } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleAnswers, FORM_OR_JSON, pageAnswers } from '../console-schemas.ts';
import { recordConsoleAction } from '../console-audit.ts';
import { confirmationRequired, formBoolean, isFormPost, optionalField } from '../form-body.ts';
import { sendData, sendPage, wantsHtml } from '../respond.ts';
import { PROJECT_REF, resolveTarget, runSqlOnProject } from './management-api.ts';
import { applyResultBody, COPY_SCRIPT, patchBody } from './patch-page.ts';
import { APPLICABLE_BUNDLES, readExpected, readServedBundles, readServedBundleText, sha256 } from './served-bundles.ts';

/** Pasted SQL: the whole JSON body is capped at 1 MiB; a bundle is read here, never sent. */
const MAX_SQL_CHARS = 900_000;

const bundleName = z.preprocess(
  (value) => (typeof value === 'string' ? value.replace(/\.sql$/, '') : value),
  z.enum(APPLICABLE_BUNDLES),
);

const applyBody = z
  .object({
    source: optionalField(z.enum(['bundle', 'sql']).describe('Which of bundle and sql a form chose.')),
    bundle: optionalField(bundleName.describe('A served bundle, with or without `.sql`.')),
    sql: optionalField(z.string().max(MAX_SQL_CHARS).describe('Pasted SQL.')),
    access_token: z
      .string()
      .trim()
      .min(1, { message: 'is required (a personal access token)' })
      .max(1024)
      .describe('A personal access token, used for this request only, never stored or logged.'),
    project_ref: optionalField(
      z
        .string()
        .trim()
        .regex(PROJECT_REF, { message: 'must be a project ref (lower-case letters, digits and dashes)' }),
    ),
    confirm: optionalField(formBoolean).describe('A form must tick it; JSON needs none.'),
  })
  .transform((body, context) => {
    // A form names its choice in `source` and sends both fields; JSON sends exactly one of them.
    const useSql = body.source ? body.source === 'sql' : body.sql !== undefined;
    const useBundle = body.source ? body.source === 'bundle' : body.bundle !== undefined;
    if (useSql === useBundle) {
      context.addIssue({ code: 'custom', message: 'send exactly one of bundle or sql' });
      return z.NEVER;
    }
    if (useSql && !body.sql?.trim()) {
      context.addIssue({ code: 'custom', path: ['sql'], message: 'is empty' });
      return z.NEVER;
    }
    return {
      bundle: useBundle ? body.bundle : undefined,
      sql: useSql ? body.sql : undefined,
      accessToken: body.access_token,
      projectRef: body.project_ref,
      confirm: body.confirm,
    };
  });

const patchQuery = z.object({ bundle: z.string().max(100).optional().describe('The bundle the page chooses.') });
const bundleFile = z.object({ file: z.string().regex(/^[a-z0-9-]+\.sql$/) });

const patchPage = z.object({
  management_api_url: z.string(),
  project_ref: z.string().nullable(),
  patch: z.object({ bundle: z.string(), version: z.string() }).describe('The patch whose version a database reports.'),
  bundles: z.array(
    z.object({
      file: z.string(),
      purpose: z.string(),
      version: z.string(),
      bytes: z.number(),
      sha256: z.string(),
      migrations: z.array(z.string()),
      applicable: z.boolean().describe('Whether apply-sql takes it (app-complete.sql is for a fresh install only).'),
      download: z.string(),
    }),
  ),
});
const schemaFile = z.object({
  file: z.literal('app-complete.sql'),
  version: z.string().nullable(),
  bytes: z.number(),
  sha256: z.string(),
  sql: z.string(),
});
const applied = z.object({
  ok: z.literal(true),
  status: z.number().describe("The Management API's status."),
  result: z.unknown().describe("The Management API's answer."),
  project_ref: z.string(),
  bundle: z.string().optional(),
});
const sqlFile = (description: string) => nonJson('application/sql', description);

const pageSchema = {
  querystring: patchQuery,
  response: pageAnswers({ 200: jsonOrPage(patchPage, 'The bundles, and where apply-sql sends SQL.') }),
};
const downloadSchema = { params: bundleFile, response: pageAnswers({ 200: sqlFile('The bundle, as a download.') }) };
const schemaSchema = {
  response: pageAnswers({
    200: {
      description: 'app-complete.sql as a download; JSON (Accept: application/json) with its version and digest.',
      content: { 'application/json': { schema: schemaFile }, 'application/sql': { schema: z.string() } },
    },
  }),
};
const applySchema = {
  consumes: FORM_OR_JSON,
  body: applyBody,
  response: consoleAnswers({
    200: jsonOrPage(applied, 'What the Management API answered; a browser gets the result page (also on a refusal).'),
  }),
};

function sendSql(reply: FastifyReply, file: string, sql: string) {
  return reply
    .type('application/sql; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file}"`)
    .send(sql);
}

const patchRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/patch', { schema: pageSchema }, async (request, reply) => {
    const { bundle } = request.query;
    const expected = await readExpected();
    const bundles = await readServedBundles(expected);
    const data: z.output<typeof patchPage> = {
      management_api_url: context.management.url,
      project_ref: context.management.projectRef ?? null,
      patch: expected.patch,
      bundles: bundles.map(({ sql: _sql, ...bundle }) => ({ ...bundle, download: `/__admin/patch/${bundle.file}` })),
    };
    return sendData(request, reply, data, () => ({
      title: 'Patch',
      current: '/__admin/patch',
      body: patchBody({ bundles, management: context.management, chosen: bundle }),
      scripts: [COPY_SCRIPT],
    }));
  });

  app.get('/__admin/patch/:file', { schema: downloadSchema }, async (request, reply) => {
    const { file } = request.params;
    return sendSql(reply, file, await readServedBundleText(file));
  });

  app.get('/__admin/schema', { schema: schemaSchema }, async (request, reply) => {
    const file = 'app-complete.sql';
    const sql = await readServedBundleText(file);
    if (request.headers.accept?.includes('application/json') && !wantsHtml(request)) {
      const expected = await readExpected();
      const answer: z.output<typeof schemaFile> = {
        file,
        version: expected.bundles.find((bundle) => bundle.file === file)?.version ?? null,
        bytes: Buffer.byteLength(sql),
        sha256: sha256(sql),
        sql,
      };
      return reply.send(answer);
    }
    return sendSql(reply, file, sql);
  });

  app.post('/__admin/apply-sql', { schema: applySchema }, async (request, reply) => {
    const body = request.body;
    if (isFormPost(request) && body.confirm !== true) {
      throw confirmationRequired('Tick the box that confirms running the SQL on the project; nothing was sent.');
    }
    const target = resolveTarget(context.management, body.projectRef);
    const file = body.bundle ? `${body.bundle}.sql` : undefined;
    const query = file ? await readServedBundleText(file) : (body.sql ?? '');
    const what = file ?? `Pasted SQL (${Buffer.byteLength(query)} bytes)`;
    const answer = await runSqlOnProject(target, body.accessToken, query);
    await recordConsoleAction(context, request, 'apply_sql', {
      detail: {
        ...(file ? { bundle: file } : { sql_sha256: sha256(query), sql_bytes: Buffer.byteLength(query) }),
        project_ref: target.projectRef,
        management_api_url: target.url,
        status: answer.status,
      },
    });
    // The API's own status for what the caller can act on (401 wrong token, 400 SQL error, 404
    // unknown project); a failure of the API itself is this server's 502.
    const status = answer.ok ? 200 : answer.status >= 400 && answer.status < 500 ? answer.status : 502;
    const payload = answer.ok
      ? {
          ok: true,
          status: answer.status,
          result: answer.result,
          project_ref: target.projectRef,
          ...(file ? { bundle: file } : {}),
        }
      : {
          ok: false,
          error: 'management_api_error',
          message: `The Management API answered ${answer.status}${typeof answer.result === 'object' && answer.result && 'message' in answer.result ? `: ${String((answer.result as { message: unknown }).message)}` : ''}; nothing was applied.`,
          status: answer.status,
          result: answer.result,
          project_ref: target.projectRef,
        };
    if (!wantsHtml(request)) return reply.code(status).send(payload);
    return sendPage(
      request,
      reply,
      () => ({
        title: 'Apply',
        current: '/__admin/patch',
        body: applyResultBody({
          what,
          projectRef: target.projectRef,
          url: target.url,
          status: answer.status,
          ok: answer.ok,
          result: answer.result,
          retry: `/__admin/patch${file ? `?bundle=${encodeURIComponent(file)}` : ''}#apply`,
        }),
      }),
      status,
    );
  });
};

export default patchRoutes;

// GET /__admin/audit?action=&person=&before=: the database's audit log (read only: nobody can edit
// it), newest first, a page at a time after entry `before`, filtered by an action (or family) and a
// person (an e-mail, an account id, or "owner" for the ADMIN_SECRET login).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { pageAnswers } from '../console-schemas.ts';
import { findAccountByEmail } from '../backend-users.ts';
import { optionalField } from '../form-body.ts';
import { SECRET_SUBJECT } from '../login/admin-login.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { AUDIT_ACTIONS, auditBody } from './audit-page.ts';
import { auditEntry, readAuditPage } from './audit-log-rows.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const auditQuery = z.object({
  action: optionalField(
    z.enum(AUDIT_ACTIONS.map((item) => item.value) as [string, ...string[]], {
      message: 'must be one of the actions the filter offers',
    }),
  ),
  person: optionalField(z.string().trim().max(320)),
  before: optionalField(z.coerce.number().int().positive({ message: 'must be an entry number' })),
});

const auditPage = z.object({
  entries: z.array(auditEntry),
  older: z.string().nullable().describe("The next page's URL, or null on the last page."),
  filters: z.object({ action: z.string().nullable(), person: z.string().nullable() }),
});
const auditSchema = {
  querystring: auditQuery,
  response: pageAnswers({ 200: jsonOrPage(auditPage, 'A page of the audit log, newest first.') }),
};

const auditRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/audit', { schema: auditSchema }, async (request, reply) => {
    const query = request.query;
    const backend = context.backend.forRoute();
    const typed = query.person ?? '';
    let person: string | undefined;
    let personProblem: string | undefined;
    if (typed) {
      if (/^(owner|secret)$/i.test(typed)) person = SECRET_SUBJECT;
      else if (UUID.test(typed)) person = typed.toLowerCase();
      else if (typed.includes('@')) {
        person = (await findAccountByEmail(backend, typed))?.id;
        if (!person) personProblem = `No account has the e-mail ${typed} (a deleted account is found by its id).`;
      } else personProblem = 'Type an e-mail, an account id, or “owner”.';
    }
    // A page says so beside the field; a script gets the error.
    if (personProblem && !wantsHtml(request))
      throw new GatewayError(
        typed.includes('@') ? 404 : 400,
        typed.includes('@') ? 'user_not_found' : 'invalid_person',
        personProblem,
      );
    const page = personProblem
      ? { entries: [], olderBefore: null }
      : await readAuditPage(backend, { action: query.action, person, before: query.before });
    const olderUrl =
      page.olderBefore === null
        ? null
        : `/__admin/audit?${new URLSearchParams({
            ...(query.action ? { action: query.action } : {}),
            ...(typed ? { person: typed } : {}),
            before: String(page.olderBefore),
          }).toString()}`;
    const answer: z.output<typeof auditPage> = {
      entries: page.entries,
      older: olderUrl,
      filters: { action: query.action ?? null, person: person ?? null },
    };
    return sendData(request, reply, answer, () => ({
      title: 'Audit log',
      current: '/__admin/audit',
      body: auditBody({
        entries: page.entries,
        action: query.action ?? '',
        person: typed,
        personProblem,
        before: query.before,
        olderBefore: page.olderBefore,
      }),
    }));
  });
};

export default auditRoutes;

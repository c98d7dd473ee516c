// GET /__admin/sessions?account=<e-mail, handle or id> (the page, or JSON {student, sessions}) and
// POST /__admin/sessions/void {session_id, reason, account?}: voids the session as the signed-in
// admin and shows the student's sessions again with the result.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { formFields, formPostSchema, pageAnswers } from '../console-schemas.ts';
import { listAccounts } from '../backend-users.ts';
import { consoleBackend, mirrorConsoleAction } from '../console-audit.ts';
import { optionalField } from '../form-body.ts';
import { sendData } from '../respond.ts';
import { sessionsBody } from './sessions-page.ts';
import { findStudent, listStudySessions, sessionRow, voidResult, voidStudySession } from './study-sessions.ts';

const accountField = optionalField(
  z.string().trim().min(1).max(320).describe('An e-mail, a handle (`@` optional, any case) or an account id.'),
);
const sessionsQuery = z.object({ account: accountField });
const voidBody = formFields(
  z.object({
    session_id: z.uuid(),
    // Checked here too, so a missing reason reads the same from a form and from JSON.
    reason: z.string().optional(),
    account: accountField,
  }),
);

/** Without `account`, the page's search form only: no student, no sessions. */
const sessionsPage = z.object({
  student: z.object({ user_id: z.string(), email: z.string().nullable(), handle: z.string().nullable() }).optional(),
  sessions: z.array(sessionRow).optional().describe('Her study sessions, newest first, voided ones included.'),
});
const voidedPage = sessionsPage.extend({ ok: z.literal(true), voided: voidResult });
const pageSchema = {
  querystring: sessionsQuery,
  response: pageAnswers({ 200: jsonOrPage(sessionsPage, "A student's study sessions.") }),
};
const voidSchema = formPostSchema(voidBody, voidedPage, 'The void, and her sessions again.');

const sessionsRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: string | undefined,
    extra: { notice?: string; data?: Pick<z.output<typeof voidedPage>, 'ok' | 'voided'> } = {},
  ) => {
    const backend = context.backend.forRoute();
    const student = account ? await findStudent(backend, account) : undefined;
    const sessions = student ? await listStudySessions(backend, student.userId) : undefined;
    // Who voided, by e-mail, when an admin voided with her own account (voided_by is then her id).
    const emails = sessions?.some((session) => session.voided_by && !session.voided_by.includes(':'))
      ? new Map((await listAccounts(backend)).map((item) => [item.id, item.email]))
      : new Map<string, string | null>();
    const page: z.output<typeof sessionsPage> = student
      ? { student: { user_id: student.userId, email: student.email, handle: student.handle }, sessions }
      : {};
    return sendData(request, reply, { ...extra.data, ...page }, () => ({
      title: 'Sessions',
      current: '/__admin/sessions',
      body: sessionsBody({ account: account ?? '', student, sessions, emails, notice: extra.notice }),
    }));
  };

  app.get('/__admin/sessions', { schema: pageSchema }, async (request, reply) =>
    show(request, reply, request.query.account),
  );

  app.post('/__admin/sessions/void', { schema: voidSchema }, async (request, reply) => {
    const body = request.body;
    const reason = body.reason?.trim() ?? '';
    if (reason.length === 0 || reason.length > 500) {
      throw new GatewayError(
        400,
        'reason_required',
        'Give a reason for the void, 1 to 500 characters (the student sees it); nothing was changed.',
      );
    }
    const subject = request.adminSession?.subject ?? 'unknown';
    // The database records the void (a trigger on voided_at, naming this admin).
    const result = await voidStudySession(consoleBackend(context, request), {
      sessionId: body.session_id,
      reason,
      voidedBy: subject,
    });
    await mirrorConsoleAction(context, request, 'void_session', {
      targetUserId: result.user_id,
      detail: { session_id: result.session_id, study_day: result.study_day, minutes: result.minutes, reason },
    });
    return show(request, reply, body.account ?? result.user_id, {
      notice: `Voided the ${result.minutes}-minute session of ${result.study_day}: it no longer counts for this student's statistics or any leaderboard.`,
      data: { ok: true, voided: result },
    });
  });
};

export default sessionsRoutes;

// GET /__admin/sessions?account=<e-mail, handle or id> (the page, or JSON {student, sessions}) and
// POST /__admin/sessions/void {session_id, reason, account?}: voids the session as the signed-in
// admin and shows the student's sessions again with the result.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { listAccounts } from '../backend-users.ts';
import { consoleBackend, mirrorConsoleAction } from '../console-audit.ts';
import { optionalField } from '../form-body.ts';
import { sendData } from '../respond.ts';
import { sessionsBody } from './sessions-page.ts';
import { findStudent, listStudySessions, voidStudySession } from './study-sessions.ts';

const sessionsQuery = z.object({ account: optionalField(z.string().trim().min(1).max(320)) });
const voidBody = z.object({
  session_id: z.uuid(),
  // Checked here too, so a missing reason reads the same from a form and from JSON.
  reason: z.string().optional(),
  account: optionalField(z.string().trim().min(1).max(320)),
});

const sessionsRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: string | undefined,
    extra: { notice?: string; data?: Record<string, unknown> } = {},
  ) => {
    const backend = context.backend.forRoute();
    const student = account ? await findStudent(backend, account) : undefined;
    const sessions = student ? await listStudySessions(backend, student.userId) : undefined;
    // Who voided, by e-mail, when an admin voided with her own account (voided_by is then her id).
    const emails = sessions?.some((session) => session.voided_by && !session.voided_by.includes(':'))
      ? new Map((await listAccounts(backend)).map((item) => [item.id, item.email]))
      : new Map<string, string | null>();
    return sendData(
      request,
      reply,
      {
        ...extra.data,
        ...(student
          ? { student: { user_id: student.userId, email: student.email, handle: student.handle }, sessions }
          : {}),
      },
      () => ({
        title: 'Sessions',
        current: '/__admin/sessions',
        body: sessionsBody({ account: account ?? '', student, sessions, emails, notice: extra.notice }),
      }),
    );
  };

  app.get('/__admin/sessions', async (request, reply) => {
    const { account } = parseOrThrow(sessionsQuery, request.query);
    return show(request, reply, account);
  });

  app.post('/__admin/sessions/void', async (request, reply) => {
    const body = parseOrThrow(voidBody, request.body ?? {});
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

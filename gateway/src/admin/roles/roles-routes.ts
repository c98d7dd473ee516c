// GET /__admin/roles (list), POST (grant) and DELETE (revoke), each body `{"user_id"}` or
// `{"email"}` with `"role": "admin"`. The page's forms post `account` (an e-mail or an id), and
// revoke with `_method=DELETE` because an HTML form cannot send DELETE. Who may revoke which row is
// the database's rule (roles.ts); the page offers only the revokes it would allow.
// POST /__admin/roles/confirm-email `{"user_id"}`: the owner, signed in with ADMIN_SECRET,
// confirms an ADMIN_EMAIL(S) account (email-confirmations.ts); any other session gets 403.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import { listAccounts } from '../backend-users.ts';
import { endAccountSessions, subjectUserId } from '../admin-cookie.ts';
import { SECRET_SUBJECT } from '../login/admin-login.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { formBoolean, optionalField } from '../form-body.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { rolesBody } from './roles-page.ts';
import { adminEmailAccounts, confirmAdminEmail, listConfirmations } from './email-confirmations.ts';
import { grantAdmin, listAdminRows, resolveUser, revokeAdmin, roleTarget } from './roles.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A form's single `account` field becomes user_id or email; JSON passes through. */
const roleRequest = z.preprocess(
  (value) => {
    if (!value || typeof value !== 'object') return value;
    const { account, _method: _ignored, confirm: _confirm, ...rest } = value as Record<string, unknown>;
    if (typeof account !== 'string' || account.trim() === '') return rest;
    const trimmed = account.trim();
    return UUID.test(trimmed) ? { ...rest, user_id: trimmed } : { ...rest, email: trimmed };
  },
  z.intersection(
    roleTarget,
    z.object({ role: z.literal('admin', { message: 'must be "admin" (the only role the console manages)' }) }),
  ),
);

const confirmRequest = z.object({ user_id: z.uuid(), confirm: optionalField(formBoolean) }).loose();

const formMethod = z
  .object({ _method: optionalField(z.enum(['DELETE'])), confirm: optionalField(formBoolean) })
  .loose();

const rolesRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    notice?: string,
    data?: Record<string, unknown>,
    status = 200,
  ) => {
    const backend = context.backend.forRoute();
    const [accounts, confirmations] = await Promise.all([listAccounts(backend), listConfirmations(backend)]);
    const rows = await listAdminRows(backend, context.allowedEmails, accounts);
    const emailAccounts = adminEmailAccounts(accounts, confirmations, context.allowedEmails);
    const canConfirm = request.adminSession?.subject === SECRET_SUBJECT;
    return sendData(
      request,
      reply,
      {
        ...data,
        admins: rows,
        admin_emails: context.allowedEmails,
        admin_email_accounts: emailAccounts,
        pending_admin_emails: emailAccounts.filter((account) => !account.confirmed),
        can_confirm_admin_emails: canConfirm,
      },
      () => ({
        title: 'Roles',
        current: '/__admin/roles',
        body: rolesBody({
          rows,
          allowedEmails: context.allowedEmails,
          emailAccounts,
          canConfirm,
          viewer: request.adminSession?.subject,
          embeddedBackend: context.embeddedBackend,
          notice,
        }),
      }),
      status,
    );
  };

  const revoke = async (request: FastifyRequest, reply: FastifyReply, body: unknown) => {
    const target = parseOrThrow(roleRequest, body);
    const backend = consoleBackend(context, request);
    const user = await resolveUser(backend, target);
    // The database decides by this session's admin, and records the revoke naming her.
    await revokeAdmin(backend, user.userId);
    // A revoked admin's open console sessions end now, not when their cookies expire; if the
    // account still qualifies another way (a confirmed ADMIN_EMAIL), it signs in again.
    await endAccountSessions(context.gate, user.userId);
    await mirrorConsoleAction(context, request, 'revoke_role', {
      targetUserId: user.userId,
      detail: { role: 'admin' },
    });
    return show(request, reply, `${user.email ?? user.userId} no longer has an admin row.`, {
      ok: true,
      revoked: { user_id: user.userId, email: user.email, role: 'admin' },
    });
  };

  app.get('/__admin/roles', async (request, reply) => show(request, reply));

  app.post('/__admin/roles', async (request, reply) => {
    const form = parseOrThrow(formMethod, request.body ?? {});
    if (form._method === 'DELETE') {
      if (wantsHtml(request) && form.confirm !== true)
        throw new GatewayError(
          400,
          'confirmation_required',
          'Tick the box that confirms the revoke; nothing was changed.',
        );
      return revoke(request, reply, request.body);
    }
    const target = parseOrThrow(roleRequest, request.body);
    const backend = consoleBackend(context, request);
    const user = await resolveUser(backend, target);
    const subject = request.adminSession?.subject ?? 'unknown';
    // The database records a new row (a trigger on user_roles, naming this admin).
    const { created } = await grantAdmin(backend, user.userId, subjectUserId(subject) ?? null);
    if (created)
      await mirrorConsoleAction(context, request, 'grant_role', {
        targetUserId: user.userId,
        detail: { role: 'admin' },
      });
    return show(
      request,
      reply,
      created
        ? `${user.email ?? user.userId} can now unlock the console.`
        : `${user.email ?? user.userId} already had an admin row.`,
      {
        ok: true,
        granted: { user_id: user.userId, email: user.email, role: 'admin', created },
      },
      created ? 201 : 200,
    );
  });

  app.delete('/__admin/roles', async (request, reply) => revoke(request, reply, request.body));

  app.post('/__admin/roles/confirm-email', async (request, reply) => {
    if (request.adminSession?.subject !== SECRET_SUBJECT) {
      throw new GatewayError(
        403,
        'secret_login_required',
        'Only the owner confirms an ADMIN_EMAIL account: sign in to the console with ADMIN_SECRET (not with an account) and confirm it on the Roles page.',
      );
    }
    const body = parseOrThrow(confirmRequest, request.body ?? {});
    if (wantsHtml(request) && body.confirm !== true)
      throw new GatewayError(
        400,
        'confirmation_required',
        'Tick the box that confirms the account; nothing was changed.',
      );
    const backend = context.backend.forRoute();
    const user = await resolveUser(backend, { user_id: body.user_id });
    await confirmAdminEmail(backend, user, context.allowedEmails, SECRET_SUBJECT);
    await recordConsoleAction(context, request, 'confirm_admin_email', {
      targetUserId: user.userId,
      detail: { email: user.email },
    });
    return show(
      request,
      reply,
      `${user.email ?? user.userId} can now unlock the console with an account login.`,
      {
        ok: true,
        confirmed: { user_id: user.userId, email: user.email },
      },
      201,
    );
  });
};

export default rolesRoutes;

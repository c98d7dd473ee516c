// GET /__admin/roles (list), POST (grant) and DELETE (revoke), each body `{"user_id"}` or
// `{"email"}` with `"role": "admin"`. The page's forms post `account` (an e-mail or an id), and
// revoke with `_method=DELETE` because an HTML form cannot send DELETE.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import { subjectUserId } from '../login/admin-login.ts';
import type { AdminContext } from '../admin-context.ts';
import { formBoolean, optionalField } from '../form-body.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { rolesBody } from './roles-page.ts';
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
  z.intersection(roleTarget, z.object({ role: z.literal('admin', { message: 'must be "admin" (the only role the console manages)' }) })),
);

const formMethod = z.object({ _method: optionalField(z.enum(['DELETE'])), confirm: optionalField(formBoolean) }).loose();

const rolesRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const show = async (request: FastifyRequest, reply: FastifyReply, notice?: string, data?: Record<string, unknown>, status = 200) => {
    const rows = await listAdminRows(context.backend.forRoute(), context.allowedEmails);
    return sendData(request, reply, { ...data, admins: rows, admin_emails: context.allowedEmails }, () => ({
      title: 'Roles',
      current: '/__admin/roles',
      body: rolesBody({ rows, allowedEmails: context.allowedEmails, notice }),
    }), status);
  };

  const revoke = async (request: FastifyRequest, reply: FastifyReply, body: unknown) => {
    const target = parseOrThrow(roleRequest, body);
    const backend = context.backend.forRoute();
    const user = await resolveUser(backend, target);
    await revokeAdmin(backend, user.userId);
    const subject = request.adminSession?.subject ?? 'unknown';
    await context.audit.record({ subject, action: 'revoke-admin', user_id: user.userId }, (error) => request.log.error({ err: error }, 'admin audit log failed'));
    return show(request, reply, `${user.email ?? user.userId} no longer has an admin row.`, { ok: true, revoked: { user_id: user.userId, email: user.email, role: 'admin' } });
  };

  app.get('/__admin/roles', async (request, reply) => show(request, reply));

  app.post('/__admin/roles', async (request, reply) => {
    const form = parseOrThrow(formMethod, request.body ?? {});
    if (form._method === 'DELETE') {
      if (wantsHtml(request) && form.confirm !== true) throw new GatewayError(400, 'confirmation_required', 'Tick the box that confirms the revoke; nothing was changed.');
      return revoke(request, reply, request.body);
    }
    const target = parseOrThrow(roleRequest, request.body);
    const backend = context.backend.forRoute();
    const user = await resolveUser(backend, target);
    const subject = request.adminSession?.subject ?? 'unknown';
    const { created } = await grantAdmin(backend, user.userId, subjectUserId(subject) ?? null);
    await context.audit.record({ subject, action: 'grant-admin', user_id: user.userId, created }, (error) => request.log.error({ err: error }, 'admin audit log failed'));
    return show(request, reply, created ? `${user.email ?? user.userId} can now unlock the console.` : `${user.email ?? user.userId} already had an admin row.`, {
      ok: true,
      granted: { user_id: user.userId, email: user.email, role: 'admin', created },
    }, created ? 201 : 200);
  });

  app.delete('/__admin/roles', async (request, reply) => revoke(request, reply, request.body));
};

export default rolesRoutes;

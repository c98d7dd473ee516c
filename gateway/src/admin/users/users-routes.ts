// GET /__admin/users?q= (every account, newest first, filtered by e-mail or handle), GET
// /__admin/users/:id (one account), and its actions, each a POST with the console's same-origin
// guard, recorded in the audit log:
//   POST /__admin/users/:id/reset-link {delivery: "mail" | "show"}  mail: as "Forgot password?";
//        show: a one-time link the admin hands over (answered once, never logged)
//   POST /__admin/users/:id/ban {duration: "1h" | "24h" | "168h" | "720h" | "876000h" | "none"}
//        (a page's form also ticks `confirm` for a ban)
//   POST /__admin/users/:id/delete {confirm_account: <the e-mail, or the id without one>}; never
//        the holder of the last admin row on a server without ADMIN_SECRET (409 last_admin_account):
//        nobody could unlock the console through user_roles or confirm an ADMIN_EMAIL account then
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GatewayError, parseOrThrow } from '../../http-errors.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { formBoolean, optionalField } from '../form-body.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { holdsLastAdminRow } from '../roles/roles.ts';
import { userBody, usersBody } from './users-page.ts';
import {
  BAN_DURATIONS,
  deleteUserWithEverything,
  findUserRow,
  generateResetLink,
  listUserRows,
  mailResetLink,
  matchUserRows,
  setBan,
  type BanDuration,
  type UserRow,
} from './users.ts';

const listQuery = z.object({ q: z.string().max(320).optional() });
const userParams = z.object({ id: z.uuid({ message: 'must be an account id' }) });
const resetBody = z.object({ delivery: z.enum(['mail', 'show']) });
const banBody = z.object({
  duration: z.enum([...(Object.keys(BAN_DURATIONS) as [BanDuration, ...BanDuration[]]), 'none'], {
    message: `must be one of ${Object.keys(BAN_DURATIONS).join(', ')} or none`,
  }),
  confirm: optionalField(formBoolean),
});
const deleteBody = z.object({ confirm_account: z.string().max(320) });

const usersRoutes: FastifyPluginAsync<{ context: AdminContext }> = async (app, { context }) => {
  const showUser = (
    request: FastifyRequest,
    reply: FastifyReply,
    row: UserRow,
    extra: { notice?: string; resetLink?: string; data?: Record<string, unknown> } = {},
  ) =>
    sendData(request, reply, { user: row, ...extra.data }, () => ({
      title: row.email ?? row.id,
      current: '/__admin/users',
      body: userBody({ row, notice: extra.notice, resetLink: extra.resetLink }),
    }));

  app.get('/__admin/users', async (request, reply) => {
    const { q = '' } = parseOrThrow(listQuery, request.query);
    const backend = consoleBackend(context, request);
    const all = await listUserRows(backend);
    const rows = matchUserRows(all, q);
    return sendData(request, reply, { users: rows, total: all.length }, () => ({
      title: 'Users',
      current: '/__admin/users',
      body: usersBody({ rows, query: q.trim(), total: all.length }),
    }));
  });

  app.get('/__admin/users/:id', async (request, reply) => {
    const { id } = parseOrThrow(userParams, request.params);
    return showUser(request, reply, await findUserRow(consoleBackend(context, request), id));
  });

  app.post('/__admin/users/:id/reset-link', async (request, reply) => {
    const { id } = parseOrThrow(userParams, request.params);
    const { delivery } = parseOrThrow(resetBody, request.body ?? {});
    const backend = consoleBackend(context, request);
    const row = await findUserRow(backend, id);
    if (!row.email) throw new GatewayError(409, 'no_email', 'This account has no e-mail address to reset.');
    if (delivery === 'mail') {
      await mailResetLink(backend, row.email);
      await recordConsoleAction(context, request, 'mail_reset_link', { targetUserId: id });
      return showUser(request, reply, row, {
        notice: `A reset link went to ${row.email}.`,
        data: { ok: true, mailed: true },
      });
    }
    const link = await generateResetLink(backend, row.email);
    await recordConsoleAction(context, request, 'show_reset_link', { targetUserId: id });
    return showUser(request, reply, row, { resetLink: link, data: { ok: true, action_link: link } });
  });

  app.post('/__admin/users/:id/ban', async (request, reply) => {
    const { id } = parseOrThrow(userParams, request.params);
    const { duration, confirm } = parseOrThrow(banBody, request.body ?? {});
    if (duration !== 'none' && wantsHtml(request) && confirm !== true)
      throw new GatewayError(400, 'confirmation_required', 'Tick the box that confirms the ban; nobody was banned.');
    const backend = consoleBackend(context, request);
    const before = await findUserRow(backend, id);
    await setBan(backend, id, duration);
    await recordConsoleAction(context, request, duration === 'none' ? 'unban_user' : 'ban_user', {
      targetUserId: id,
      ...(duration === 'none' ? {} : { detail: { duration } }),
    });
    const row = await findUserRow(backend, id);
    const name = before.email ?? id;
    return showUser(request, reply, row, {
      notice:
        duration === 'none'
          ? `${name} is no longer banned.`
          : `${name} is banned ${duration === '876000h' ? 'until unbanned' : `for ${BAN_DURATIONS[duration]}`}.`,
      data: { ok: true },
    });
  });

  app.post('/__admin/users/:id/delete', async (request, reply) => {
    const { id } = parseOrThrow(userParams, request.params);
    const { confirm_account: typed } = parseOrThrow(deleteBody, request.body ?? {});
    const backend = consoleBackend(context, request);
    const row = await findUserRow(backend, id);
    const expected = row.email ?? row.id;
    if (typed.trim().toLowerCase() !== expected.toLowerCase())
      throw new GatewayError(
        400,
        'confirmation_required',
        `Type ${row.email ? 'the account’s e-mail' : 'the account id'} exactly to delete it; nothing was deleted.`,
      );
    if (!context.secret && (await holdsLastAdminRow(backend, id)))
      throw new GatewayError(
        409,
        'last_admin_account',
        `${expected} holds the last admin row and this server has no ADMIN_SECRET: without that account nobody could unlock the console. Grant admin to someone else first (Roles); nothing was deleted.`,
      );
    // The database records the deletion itself (admin_delete_account names this admin).
    const objects = await deleteUserWithEverything(backend, id);
    await mirrorConsoleAction(context, request, 'delete_account', { targetUserId: id, detail: { objects } });
    const rows = await listUserRows(backend);
    return sendData(request, reply, { ok: true, deleted: { user_id: id, objects } }, () => ({
      title: 'Users',
      current: '/__admin/users',
      body: usersBody({
        rows,
        query: '',
        total: rows.length,
        notice: `${expected} was deleted, with every file and row of that account.`,
      }),
    }));
  });
};

export default usersRoutes;

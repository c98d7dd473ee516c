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
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { formFields, formPostSchema, pageAnswers } from '../console-schemas.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { confirmationRequired, formBoolean, optionalField } from '../form-body.ts';
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

const listQuery = z.object({ q: z.string().max(320).optional().describe('Part of an e-mail or handle, any case.') });
const userParams = z.object({ id: z.uuid({ message: 'must be an account id' }) });
const resetBody = formFields(z.object({ delivery: z.enum(['mail', 'show']) }));
const banBody = formFields(
  z.object({
    duration: z.enum([...(Object.keys(BAN_DURATIONS) as [BanDuration, ...BanDuration[]]), 'none'], {
      message: `must be one of ${Object.keys(BAN_DURATIONS).join(', ')} or none`,
    }),
    confirm: optionalField(formBoolean),
  }),
);
const deleteBody = formFields(
  z.object({ confirm_account: z.string().max(320).describe('Her e-mail (her id when she has none), any case.') }),
);

const userRow = z.object({
  id: z.string(),
  email: z.string().nullable(),
  handle: z.string().nullable(),
  created_at: z.string().nullable(),
  last_sign_in_at: z.string().nullable(),
  last_seen: z.string().nullable(),
  banned_until: z.string().nullable(),
  banned: z.boolean(),
  sessions: z.number(),
  minutes: z.number(),
  storage_bytes: z.number(),
  storage_objects: z.number(),
});
const usersPage = z.object({ users: z.array(userRow), total: z.number() });
const userPage = z.object({ user: userRow });
const resetAnswer = userPage.extend({
  ok: z.literal(true),
  mailed: z.literal(true).optional(),
  action_link: z.string().optional().describe('show: a one-time recovery link, answered once and never logged.'),
});
const banAnswer = userPage.extend({ ok: z.literal(true) });
const deleteAnswer = z.object({
  ok: z.literal(true),
  deleted: z.object({ user_id: z.string(), objects: z.number().describe('Stored objects removed.') }),
});

const pageSchema = {
  querystring: listQuery,
  response: pageAnswers({ 200: jsonOrPage(usersPage, 'Every account, newest first, filtered by q.') }),
};
const oneSchema = { params: userParams, response: pageAnswers({ 200: jsonOrPage(userPage, 'One account.') }) };
const actionSchema = <B extends z.ZodType, A extends z.ZodType>(body: B, answer: A, description: string) => ({
  params: userParams,
  ...formPostSchema(body, answer, description),
});

const usersRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const showUser = (
    request: FastifyRequest,
    reply: FastifyReply,
    row: UserRow,
    extra: { notice?: string; resetLink?: string; data?: Omit<z.output<typeof resetAnswer>, 'user'> } = {},
  ) =>
    sendData(request, reply, { user: row, ...extra.data }, () => ({
      title: row.email ?? row.id,
      current: '/__admin/users',
      body: userBody({ row, notice: extra.notice, resetLink: extra.resetLink }),
    }));

  app.get('/__admin/users', { schema: pageSchema }, async (request, reply) => {
    const { q = '' } = request.query;
    const backend = consoleBackend(context, request);
    const all = await listUserRows(backend);
    const rows = matchUserRows(all, q);
    const page: z.output<typeof usersPage> = { users: rows, total: all.length };
    return sendData(request, reply, page, () => ({
      title: 'Users',
      current: '/__admin/users',
      body: usersBody({ rows, query: q.trim(), total: all.length }),
    }));
  });

  app.get('/__admin/users/:id', { schema: oneSchema }, async (request, reply) => {
    const { id } = request.params;
    return showUser(request, reply, await findUserRow(consoleBackend(context, request), id));
  });

  const resetSchema = actionSchema(resetBody, resetAnswer, 'The account, with the link mailed or shown.');
  app.post('/__admin/users/:id/reset-link', { schema: resetSchema }, async (request, reply) => {
    const { id } = request.params;
    const { delivery } = request.body;
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

  const banSchema = actionSchema(banBody, banAnswer, 'The account, banned or no longer banned.');
  app.post('/__admin/users/:id/ban', { schema: banSchema }, async (request, reply) => {
    const { id } = request.params;
    const { duration, confirm } = request.body;
    if (duration !== 'none' && wantsHtml(request) && confirm !== true)
      throw confirmationRequired('Tick the box that confirms the ban; nobody was banned.');
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

  const deleteSchema = actionSchema(deleteBody, deleteAnswer, 'What was deleted; the page lists the accounts left.');
  app.post('/__admin/users/:id/delete', { schema: deleteSchema }, async (request, reply) => {
    const { id } = request.params;
    const { confirm_account: typed } = request.body;
    const backend = consoleBackend(context, request);
    const row = await findUserRow(backend, id);
    const expected = row.email ?? row.id;
    if (typed.trim().toLowerCase() !== expected.toLowerCase())
      throw confirmationRequired(
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
    const answer: z.output<typeof deleteAnswer> = { ok: true, deleted: { user_id: id, objects } };
    return sendData(request, reply, answer, () => ({
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

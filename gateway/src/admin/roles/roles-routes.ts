// GET /__admin/roles (list), POST (grant) and DELETE (revoke), each body `{"user_id"}` or
// `{"email"}` with `"role": "admin"`. The page's forms post `account` (an e-mail or an id), and
// revoke with `_method=DELETE` because an HTML form cannot send DELETE. Who may revoke which row is
// the database's rule (roles.ts); the page offers only the revokes it would allow.
// POST /__admin/roles/confirm-email `{"user_id"}`: the owner, signed in with ADMIN_SECRET,
// confirms an ADMIN_EMAIL(S) account (email-confirmations.ts); any other session gets 403.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import { listAccounts } from '../backend-users.ts';
import { endAccountSessions, subjectUserId } from '../admin-cookie.ts';
import { SECRET_SUBJECT } from '../login/admin-login.ts';
import type { AdminContext } from '../admin-context.ts';
import { consoleBackend, mirrorConsoleAction, recordConsoleAction } from '../console-audit.ts';
import { consoleAnswers, FORM_OR_JSON, formFields, pageAnswers } from '../console-schemas.ts';
import { confirmationRequired, formBoolean, optionalField } from '../form-body.ts';
import { sendData, wantsHtml } from '../respond.ts';
import { rolesBody } from './roles-page.ts';
import { adminEmailAccounts, confirmAdminEmail, listConfirmations } from './email-confirmations.ts';
import { grantAdmin, listAdminRows, resolveUser, revokeAdmin, roleTarget, type RoleTarget } from './roles.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A form's single `account` field becomes user_id or email; JSON passes through. */
function fromForm(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const { account, ...rest } = value as Record<string, unknown>;
  if (typeof account !== 'string' || account.trim() === '') return rest;
  const trimmed = account.trim();
  return UUID.test(trimmed) ? { ...rest, user_id: trimmed } : { ...rest, email: trimmed };
}

const TARGET_DESCRIPTION =
  '{user_id} or {email}, with role "admin". A form sends `account` (an e-mail or an id) instead, which becomes one of them.';
const role = z.literal('admin', { message: 'must be "admin" (the only role the console manages)' });

/** DELETE /__admin/roles: whose admin row to revoke. */
const revokeRequest = z
  .preprocess(fromForm, z.intersection(roleTarget, z.object({ role })))
  .describe(TARGET_DESCRIPTION);

/** POST /__admin/roles: a grant, or from the page's revoke form (which cannot send DELETE) a revoke. */
const grantOrRevokeForm = z
  .preprocess(
    fromForm,
    z.intersection(
      roleTarget,
      z.object({
        role,
        _method: optionalField(z.enum(['DELETE']).describe("DELETE: a revoke, from the page's form.")),
        confirm: optionalField(formBoolean).describe('A revoke form must tick it.'),
      }),
    ),
  )
  .describe(TARGET_DESCRIPTION);

const confirmRequest = formFields(
  z.object({ user_id: z.uuid(), confirm: optionalField(formBoolean).describe('A form must tick it.') }).loose(),
);

const emailAccount = z.object({
  user_id: z.string(),
  email: z.string(),
  created_at: z.string().nullable(),
  confirmed: z.boolean(),
  confirmed_at: z.string().nullable(),
  confirmed_by: z.string().nullable().describe("The owner's subject, or `mailbox:<method>`."),
});
const rolesPage = z.object({
  ok: z.literal(true).optional(),
  granted: z
    .object({ user_id: z.string(), email: z.string().nullable(), role: z.literal('admin'), created: z.boolean() })
    .optional(),
  revoked: z.object({ user_id: z.string(), email: z.string().nullable(), role: z.literal('admin') }).optional(),
  confirmed: z.object({ user_id: z.string(), email: z.string().nullable() }).optional(),
  admins: z.array(
    z.object({
      user_id: z.string(),
      email: z.string().nullable(),
      granted_by: z.string().nullable(),
      created_at: z.string(),
      in_admin_emails: z.boolean(),
    }),
  ),
  admin_emails: z.array(z.string()),
  admin_email_accounts: z.array(emailAccount).describe('The accounts whose e-mail is in ADMIN_EMAIL(S).'),
  pending_admin_emails: z.array(emailAccount).describe('Those not confirmed yet.'),
  can_confirm_admin_emails: z.boolean(),
});
type RolesAction = Pick<z.output<typeof rolesPage>, 'ok' | 'granted' | 'revoked' | 'confirmed'>;

const rolesAnswer = (description: string) => jsonOrPage(rolesPage, description);
const pageSchema = { response: pageAnswers({ 200: rolesAnswer('The admin rows and the ADMIN_EMAIL(S) accounts.') }) };
const grantSchema = {
  consumes: FORM_OR_JSON,
  body: grantOrRevokeForm,
  response: consoleAnswers({
    200: rolesAnswer('Already held (`granted.created` false), or revoked from a form; and the roles.'),
    201: rolesAnswer('Granted; and the roles.'),
  }),
};
const revokeSchema = {
  consumes: FORM_OR_JSON,
  body: revokeRequest,
  response: consoleAnswers({ 200: rolesAnswer('Revoked; and the roles.') }),
};
const confirmSchema = {
  consumes: FORM_OR_JSON,
  body: confirmRequest,
  response: consoleAnswers({ 201: rolesAnswer('Confirmed; and the roles.') }),
};

const rolesRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    notice?: string,
    data?: RolesAction,
    status = 200,
  ) => {
    const backend = context.backend.forRoute();
    const [accounts, confirmations] = await Promise.all([listAccounts(backend), listConfirmations(backend)]);
    const rows = await listAdminRows(backend, context.allowedEmails, accounts);
    const emailAccounts = adminEmailAccounts(accounts, confirmations, context.allowedEmails);
    const canConfirm = request.adminSession?.subject === SECRET_SUBJECT;
    const page: z.output<typeof rolesPage> = {
      ...data,
      admins: rows,
      admin_emails: [...context.allowedEmails],
      admin_email_accounts: emailAccounts,
      pending_admin_emails: emailAccounts.filter((account) => !account.confirmed),
      can_confirm_admin_emails: canConfirm,
    };
    return sendData(
      request,
      reply,
      page,
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

  const revoke = async (request: FastifyRequest, reply: FastifyReply, target: RoleTarget) => {
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

  app.get('/__admin/roles', { schema: pageSchema }, async (request, reply) => show(request, reply));

  app.post('/__admin/roles', { schema: grantSchema }, async (request, reply) => {
    const target = request.body;
    if (target._method === 'DELETE') {
      if (wantsHtml(request) && target.confirm !== true)
        throw confirmationRequired('Tick the box that confirms the revoke; nothing was changed.');
      return revoke(request, reply, target);
    }
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

  app.delete('/__admin/roles', { schema: revokeSchema }, async (request, reply) =>
    revoke(request, reply, request.body),
  );

  const confirmOptions = {
    // The owner's check comes before the body's: any other session learns only that it may not.
    preValidation: async (request: FastifyRequest) => {
      if (request.adminSession?.subject !== SECRET_SUBJECT) {
        throw new GatewayError(
          403,
          'secret_login_required',
          'Only the owner confirms an ADMIN_EMAIL account: sign in to the console with ADMIN_SECRET (not with an account) and confirm it on the Roles page.',
        );
      }
    },
    schema: confirmSchema,
  };
  app.post('/__admin/roles/confirm-email', confirmOptions, async (request, reply) => {
    const body = request.body;
    if (wantsHtml(request) && body.confirm !== true)
      throw confirmationRequired('Tick the box that confirms the account; nothing was changed.');
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

// Changing an account: PUT /user (the user herself) and PUT /admin/users/:id (service role), in
// GoTrue's shapes.
//
// A password change by the user needs proof that she is the account's owner and not merely the
// holder of its access token: the current password (`current_password`, which auth-js 2.109
// sends when asked to), or the code of GET /reauthenticate (`nonce`). Exempt, for the hour after
// the link was followed, is a session that a recovery, magic or invite link started, since
// following the link proves the same. That hour is read from when the session recorded the link
// (sessions.ts, session_amr), never from the access token's `amr`: every refresh copies the claim,
// so a session's refresh token would otherwise carry the exemption for as long as it lives. The
// change ends every other session of the user, as GoTrue does.
//
// A new e-mail address is not taken at once: links go to the new address and to the current one,
// and the address changes once both are verified (type `email_change`; email-change.ts). Until
// then the user shows it as `new_email`.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { withOwnerTransaction } from '../request-transaction.ts';
import { parseBanDuration } from './ban-duration.ts';
import type { AuthContext } from './context.ts';
import { confirmingTokens, requestEmailChange } from './email-change.ts';
import { AuthError, emailExists, userNotFound, validationFailed } from './errors.ts';
import { checkEmail, checkPassword, isUniqueViolation, metadata, parse } from './input.ts';
import type { Mail } from './mail.ts';
import { spendTokenByOtp } from './one-time-tokens.ts';
import { redirectOrSite } from './redirects.ts';
import { hasVerifiedFactor } from './mfa-factors.ts';
import { ACCESS_TOKEN_LIFETIME_SECONDS, endSessions, provedWithin, sessionIsAal2 } from './sessions.ts';
import {
  changeEmail,
  confirmEmail,
  findUserByEmail,
  findUserById,
  mergeMetadata,
  setBan,
  setPassword,
} from './users.ts';

const userUpdateBody = z
  .object({
    email: z.string().optional(),
    password: z.string().optional(),
    current_password: z.string().optional(),
    nonce: z.string().optional(),
    data: metadata.optional(),
  })
  .passthrough();
const adminUpdateBody = z
  .object({
    email: z.string().optional(),
    password: z.string().optional(),
    email_confirm: z.boolean().optional(),
    user_metadata: metadata.optional(),
    app_metadata: metadata.optional(),
    ban_duration: z.string().optional(),
  })
  .passthrough();
const redirectQuery = z.object({ redirect_to: z.string().optional() }).passthrough();
const userIdParams = z.object({ id: z.uuid() });

/** Sessions started by following a link sent to the address: they may set a password without the old one. */
const LINK_METHODS = ['recovery', 'otp', 'invite', 'magiclink'];
/** For as long as the access token the link issued lives: a refresh neither renews nor extends it. */
const LINK_EXEMPTION_SECONDS = ACCESS_TOKEN_LIFETIME_SECONDS;

export const reauthenticationNeeded = () =>
  new AuthError(400, 'reauthentication_needed', 'Password update requires reauthentication');

export async function accountRoutes(app: FastifyInstance, context: AuthContext): Promise<void> {
  const { pool } = context;

  app.put('/user', async (request) => {
    const caller = await context.signedInUser(request);
    const body = parse(userUpdateBody, request.body);
    const { redirect_to: redirectTo } = parse(redirectQuery, request.query);
    const { current, mfaEnabled, aal2, linkFollowedRecently } = await withOwnerTransaction(pool, async (client) => ({
      current: await findUserById(client, caller.userId),
      mfaEnabled: await hasVerifiedFactor(client, caller.userId),
      aal2: await sessionIsAal2(client, caller.sessionId),
      linkFollowedRecently: await provedWithin(client, caller.sessionId, LINK_METHODS, LINK_EXEMPTION_SECONDS),
    }));
    if (!current) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    const newEmail = body.email === undefined ? undefined : checkEmail(body.email);
    const changesEmail = newEmail !== undefined && newEmail !== current.email;
    // With a second factor, whoever holds an aal1 session (a stolen password) cannot take the account over.
    if (mfaEnabled && !aal2 && (body.password || changesEmail)) {
      throw new AuthError(
        401,
        'insufficient_aal',
        'AAL2 session is required to update email or password when MFA is enabled.',
      );
    }
    if (current.is_anonymous && body.password && !newEmail) {
      throw new AuthError(
        422,
        'validation_failed',
        'Updating password of an anonymous user without an email or phone is not allowed',
      );
    }

    let passwordHash: string | undefined;
    if (body.password !== undefined) {
      await checkPassword(body.password, current.email);
      const hasPassword = current.encrypted_password !== null;
      if (hasPassword && !linkFollowedRecently && body.nonce === undefined) {
        if (body.current_password === undefined) throw reauthenticationNeeded();
        // bcrypt outside any transaction (PGlite has one session), as the password grant does.
        if (!(await context.passwords.matches(body.current_password, current.encrypted_password))) {
          throw new AuthError(400, 'invalid_credentials', 'Current password is incorrect');
        }
      }
      if (hasPassword && (await context.passwords.matches(body.password, current.encrypted_password))) {
        throw new AuthError(422, 'same_password', 'New password should be different from the old password.');
      }
      passwordHash = await context.passwords.hash(body.password);
    }

    // A wrong nonce must count as a failed attempt even though the update is refused.
    if (body.password !== undefined && body.nonce !== undefined) {
      const nonce = body.nonce;
      const spent = /^\d{6}$/.test(nonce)
        ? await withOwnerTransaction(pool, (client) =>
            spendTokenByOtp(client, caller.userId, nonce, ['reauthentication']),
          )
        : undefined;
      if (!spent) throw new AuthError(400, 'reauthentication_not_valid', 'Requires reauthentication');
    }

    let mails: Mail[] = [];
    const updated = await withOwnerTransaction(pool, async (client) => {
      if (passwordHash !== undefined) {
        await setPassword(client, caller.userId, passwordHash);
        await endSessions(client, caller.userId, caller.sessionId, 'others');
      }
      if (body.data !== undefined) await mergeMetadata(client, caller.userId, 'raw_user_meta_data', body.data);
      if (newEmail !== undefined && changesEmail) {
        const owner = await findUserByEmail(client, newEmail);
        if (owner) throw emailExists();
        if (current.is_anonymous) {
          // An anonymous user adding an address is signing up: confirmed at once, as sign-ups are
          // here (GoTrue with autoconfirm); she becomes a permanent user.
          await changeEmail(client, caller.userId, newEmail);
        } else {
          const target = redirectOrSite(context.redirects, redirectTo);
          const tokens = confirmingTokens(context, current);
          const issued = await requestEmailChange(context, client, current, newEmail, target, tokens);
          mails = issued.map((token) => token.mail);
        }
      }
      const user = await findUserById(client, caller.userId);
      if (!user) throw userNotFound();
      return user.user;
    });
    for (const mail of mails) await context.mailer.send(mail);
    return updated;
  });

  app.put('/admin/users/:id', async (request) => {
    await context.requireServiceRole(request);
    const { id } = parse(userIdParams, request.params);
    const body = parse(adminUpdateBody, request.body);
    const email = body.email === undefined ? undefined : checkEmail(body.email);
    const banSeconds = body.ban_duration === undefined ? undefined : parseBanDuration(body.ban_duration);
    if (banSeconds === undefined && body.ban_duration !== undefined) {
      throw validationFailed(`ban_duration: invalid format, use a duration like "24h" or "none"`);
    }
    const existing = await withOwnerTransaction(pool, (client) => findUserById(client, id));
    if (!existing) throw userNotFound();
    if (body.password !== undefined) await checkPassword(body.password, email ?? existing.email);
    const passwordHash = body.password === undefined ? undefined : await context.passwords.hash(body.password);
    return withOwnerTransaction(pool, async (client) => {
      if (email !== undefined && email !== existing.email) {
        try {
          await changeEmail(client, id, email);
        } catch (error) {
          if (isUniqueViolation(error)) throw emailExists();
          throw error;
        }
      }
      if (passwordHash !== undefined) await setPassword(client, id, passwordHash);
      if (body.email_confirm === true) await confirmEmail(client, id);
      if (body.user_metadata !== undefined) await mergeMetadata(client, id, 'raw_user_meta_data', body.user_metadata);
      if (body.app_metadata !== undefined) await mergeMetadata(client, id, 'raw_app_meta_data', body.app_metadata);
      if (banSeconds !== undefined) {
        await setBan(client, id, banSeconds);
        // A ban ends the user's sessions now: her access tokens stop working on the next request
        // (every API checks the session) and her refresh tokens with them.
        if (banSeconds !== null && banSeconds > 0) await endSessions(client, id, id, 'global');
      }
      const user = await findUserById(client, id);
      if (!user) throw userNotFound();
      return user.user;
    });
  });
}

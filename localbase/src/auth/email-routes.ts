// Getting back in by e-mail, GoTrue's routes and shapes: /recover, /otp (magic link), /resend,
// /verify (POST answers a session; GET, the link in the mail, redirects with the session in the
// URL fragment; the first of an address change's two confirmations answers a message instead:
// email-change.ts), /admin/generate_link and /reauthenticate.
//
// The routes that mail someone (/recover, /otp, /resend) answer 200 before looking the address
// up, and do the lookup, the token and the mail after the answer: whether an account exists shows
// neither in the answer nor in its timing. For the same reason they never create an account
// (`create_user` is ignored: sign-up is the one way in), and an unknown address gets no mail.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { withOwnerTransaction } from '../request-transaction.ts';
import type { AuthContext } from './context.ts';
import {
  confirmEmailChange,
  confirmingTokens,
  isEmailChangeToken,
  ONE_OF_TWO_CONFIRMED,
  requestEmailChange,
} from './email-change.ts';
import { AuthError, emailExists, linkExpired, userNotFound, validationFailed } from './errors.ts';
import { checkEmail, checkPassword, metadata, parse } from './input.ts';
import { composeMail, type Mail } from './mail.ts';
import { issueToken, spendTokenByOtp, spendTokenBySecret, type SpentToken, type TokenType } from './one-time-tokens.ts';
import { redirectOrSite } from './redirects.ts';
import { buildSession, startSession, type Session } from './sessions.ts';
import {
  confirmEmail,
  findUserByEmail,
  findUserById,
  findUsersByPendingEmail,
  insertUser,
  markInvited,
  recordSignIn,
  type UserRow,
} from './users.ts';
import { verifyLink } from './verify-link.ts';

/** Which stored tokens a verify `type` accepts (GoTrue's `email` stands for any sign-in link). */
const VERIFY_TYPES = {
  signup: ['signup', 'invite'],
  invite: ['invite', 'signup'],
  magiclink: ['magiclink'],
  recovery: ['recovery'],
  email_change: ['email_change_new', 'email_change_current'],
  email: ['magiclink', 'signup', 'invite'],
  // GoTrue's phone types: localbase has no phone sign-in, so no token of theirs ever exists.
  sms: [],
  phone_change: [],
} as const satisfies Record<string, readonly TokenType[]>;
type VerifyType = keyof typeof VERIFY_TYPES;
const verifyType = z.enum(Object.keys(VERIFY_TYPES) as [VerifyType, ...VerifyType[]]);

/** GoTrue's E.164 check, after it drops a leading `+` and spaces. */
const E164 = /^[1-9]\d{1,14}$/;

/** A link secret is 64 hex digits; anything else is simply not a token. */
const SECRET = /^[0-9a-f]{64}$/;

const redirectQuery = z.object({ redirect_to: z.string().optional() }).passthrough();
const emailBody = z.object({ email: z.string() }).passthrough();
const resendBody = z.object({ email: z.string(), type: z.enum(['signup', 'email_change']) }).passthrough();
const verifyBody = z
  .object({
    type: verifyType,
    token_hash: z.string().optional(),
    token: z.string().optional(),
    email: z.string().optional(),
    phone: z.string().optional(),
    redirect_to: z.string().optional(),
  })
  .passthrough();
const verifyQuery = z.object({ token: z.string(), type: verifyType, redirect_to: z.string().optional() }).passthrough();
const generateLinkBody = z
  .object({
    type: z.enum(['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new']),
    email: z.string(),
    new_email: z.string().optional(),
    password: z.string().optional(),
    data: metadata.optional(),
    redirect_to: z.string().optional(),
  })
  .passthrough();

const inviteBody = z.object({ email: z.string(), data: metadata.optional() }).passthrough();

const codeExpired = () => new AuthError(403, 'otp_expired', 'Token has expired or is invalid');
export const userBanned = () => new AuthError(400, 'user_banned', 'User is banned');

/** The `amr` method of a session started by a link or code of this type (GoTrue's names). */
const AMR_METHODS: Record<TokenType, string> = {
  signup: 'otp',
  invite: 'invite',
  magiclink: 'otp',
  recovery: 'recovery',
  email_change_new: 'email_change',
  email_change_current: 'email_change',
  reauthentication: 'otp',
};

/** What following a link or code did: started a session, or counted the first of two address confirmations. */
type Verified = { kind: 'session'; session: Session } | { kind: 'awaiting-other-address' };

export async function emailRoutes(app: FastifyInstance, context: AuthContext): Promise<void> {
  const { pool, signing, mailer, redirects } = context;

  /**
   * Issues a token of `type` for the user and composes its mail (sent by the caller after the
   * commit). Not for address changes, whose tokens come in pairs (email-change.ts).
   */
  async function tokenMail(
    client: pg.PoolClient,
    user: UserRow,
    type: Exclude<TokenType, 'email_change_new' | 'email_change_current'>,
    redirectTo: string,
  ): Promise<{ mail: Mail; secret: string; otp: string; link: string }> {
    const { secret, otp } = await issueToken(client, user.id, type, { redirectTo });
    const link = verifyLink(context.linkBase(), secret, type, redirectTo);
    const mail = composeMail(type, user.id, user.email ?? '', type === 'reauthentication' ? null : link, otp);
    return { mail, secret, otp, link };
  }

  /** Looks the address up after the answer and sends the mails `compose` issues for its user (none: nothing). */
  function mailLater(
    request: Parameters<AuthContext['afterAnswer']>[0],
    email: string,
    compose: (client: pg.PoolClient, user: UserRow) => Promise<Mail[]>,
  ): void {
    context.afterAnswer(request, async () => {
      const mails = await withOwnerTransaction(pool, async (client) => {
        const user = await findUserByEmail(client, email);
        return user && !user.banned ? compose(client, user) : [];
      });
      for (const mail of mails) await mailer.send(mail);
    });
  }

  app.post('/recover', async (request) => {
    const { email } = parse(emailBody, request.body);
    const address = checkEmail(email);
    const { redirect_to: redirectTo } = parse(redirectQuery, request.query);
    const target = redirectOrSite(redirects, redirectTo);
    mailLater(request, address, async (client, user) => [(await tokenMail(client, user, 'recovery', target)).mail]);
    return {};
  });

  app.post('/otp', async (request) => {
    const body = parse(z.object({ email: z.string().optional() }).passthrough(), request.body);
    if (body.email === undefined) throw new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled');
    const address = checkEmail(body.email);
    const { redirect_to: redirectTo } = parse(redirectQuery, request.query);
    const target = redirectOrSite(redirects, redirectTo);
    // As GoTrue: an address not confirmed yet is sent the sign-up confirmation instead.
    mailLater(request, address, async (client, user) => [
      (await tokenMail(client, user, user.confirmed ? 'magiclink' : 'signup', target)).mail,
    ]);
    return {};
  });

  app.post('/resend', async (request) => {
    const body = parse(resendBody, request.body);
    const address = checkEmail(body.email);
    const { redirect_to: redirectTo } = parse(redirectQuery, request.query);
    const target = redirectOrSite(redirects, redirectTo);
    mailLater(request, address, async (client, user) => {
      if (body.type === 'signup') return user.confirmed ? [] : [(await tokenMail(client, user, 'signup', target)).mail];
      // As GoTrue: the pending change is asked anew, of every address that confirms it.
      const pending = (user.user as { new_email?: string }).new_email;
      if (!pending) return [];
      const issued = await requestEmailChange(context, client, user, pending, target, confirmingTokens(context, user));
      return issued.map((token) => token.mail);
    });
    return {};
  });

  /**
   * Applies a spent token to its user and starts a session, unless it is the first of two
   * confirmations of an address change; throws (rolling the spending back) when refused.
   */
  async function applyToken(client: pg.PoolClient, token: SpentToken): Promise<Verified> {
    const found = await findUserById(client, token.userId);
    if (!found) throw userNotFound();
    if (found.banned) throw userBanned();
    if (isEmailChangeToken(token.type)) {
      if ((await confirmEmailChange(context, client, found, token)) === 'awaiting-other') {
        return { kind: 'awaiting-other-address' };
      }
    } else {
      // Following a link sent to the address proves the address: this is what confirms an e-mail.
      await confirmEmail(client, found.id);
    }
    await recordSignIn(client, found.id);
    const { sessionId, refreshToken } = await startSession(client, found.id, AMR_METHODS[token.type]);
    const user = await findUserById(client, found.id);
    if (!user) throw userNotFound();
    return {
      kind: 'session',
      session: await buildSession(signing, user.user, sessionId, refreshToken, AMR_METHODS[token.type]),
    };
  }

  /** POST /verify's answer: the session, or GoTrue's message for the first of two confirmations. */
  const verifyAnswer = (verified: Verified) =>
    verified.kind === 'session' ? verified.session : { msg: ONE_OF_TWO_CONFIRMED, code: '200' };

  /**
   * Whose token a code may be, and of which purposes: the account with that address; for an
   * address change, the current address's token of the account that has it, and the new
   * address's token of each account waiting to move to it.
   */
  async function codeHolders(
    client: pg.PoolClient,
    email: string,
    type: VerifyType,
  ): Promise<{ userId: string; types: readonly TokenType[] }[]> {
    const owner = await findUserByEmail(client, email);
    if (type !== 'email_change') return owner ? [{ userId: owner.id, types: VERIFY_TYPES[type] }] : [];
    const movers = await findUsersByPendingEmail(client, email);
    return [
      ...(owner ? [{ userId: owner.id, types: ['email_change_current'] as const }] : []),
      ...movers.map((userId) => ({ userId, types: ['email_change_new'] as const })),
    ];
  }

  app.post('/verify', async (request) => {
    const body = parse(verifyBody, request.body);
    const types = VERIFY_TYPES[body.type];
    if (body.token_hash !== undefined) {
      if (!SECRET.test(body.token_hash)) throw linkExpired();
      const secret = body.token_hash;
      return withOwnerTransaction(pool, async (client) => {
        const token = await spendTokenBySecret(client, secret, types);
        if (!token) throw linkExpired();
        return verifyAnswer(await applyToken(client, token));
      });
    }
    if (body.phone !== undefined && body.email === undefined && body.token !== undefined) {
      // As GoTrue: the number must be E.164, and then no phone has a code to match.
      if (!E164.test(body.phone.replace(/^\+/, '').replaceAll(' ', ''))) {
        throw validationFailed('Invalid phone number format (E.164 required)');
      }
      throw codeExpired();
    }
    if (body.email === undefined || body.token === undefined) {
      throw validationFailed('Verify requires either a token_hash, or an email and a token');
    }
    const email = checkEmail(body.email);
    const otp = body.token.replace(/[\s-]/g, '');
    // A wrong code must count even though the answer is a refusal: the refusal is thrown after the commit.
    const outcome = await withOwnerTransaction(pool, async (client) => {
      if (!/^\d{6}$/.test(otp)) return undefined;
      for (const holder of await codeHolders(client, email, body.type)) {
        const token = await spendTokenByOtp(client, holder.userId, otp, holder.types);
        if (token) return { token };
      }
      return undefined;
    });
    if (!outcome) throw codeExpired();
    return withOwnerTransaction(pool, async (client) => verifyAnswer(await applyToken(client, outcome.token)));
  });

  app.get('/verify', async (request, reply: FastifyReply) => {
    const query = parse(verifyQuery, request.query);
    const redirectTo = redirectOrSite(redirects, query.redirect_to);
    const fragment = (values: Record<string, string>) => `${redirectTo}#${new URLSearchParams(values).toString()}`;
    let verified: Verified;
    try {
      if (!SECRET.test(query.token)) throw linkExpired();
      verified = await withOwnerTransaction(pool, async (client) => {
        const token = await spendTokenBySecret(client, query.token, VERIFY_TYPES[query.type]);
        if (!token) throw linkExpired();
        return applyToken(client, token);
      });
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      // As GoTrue: the browser still goes to the site, with the error where the session would be.
      const location = fragment({ error: 'access_denied', error_code: error.code, error_description: error.message });
      return reply.status(303).header('location', location).send();
    }
    if (verified.kind === 'awaiting-other-address') {
      // As GoTrue: back to the app with the message, and no session until the other address confirms.
      return reply
        .status(303)
        .header('location', fragment({ message: ONE_OF_TWO_CONFIRMED }))
        .send();
    }
    const { session } = verified;
    const location = fragment({
      access_token: session.access_token,
      expires_at: String(session.expires_at),
      expires_in: String(session.expires_in),
      refresh_token: session.refresh_token,
      token_type: session.token_type,
      type: query.type,
    });
    return reply.status(303).header('location', location).send();
  });

  app.post('/admin/generate_link', async (request) => {
    await context.requireServiceRole(request);
    const body = parse(generateLinkBody, request.body);
    const email = checkEmail(body.email);
    const { redirect_to: queryRedirect } = parse(redirectQuery, request.query);
    const redirectTo = redirectOrSite(redirects, queryRedirect ?? body.redirect_to);
    if (body.type === 'signup') {
      if (body.password === undefined) throw validationFailed('Password is required for signup links');
      await checkPassword(body.password, email);
    }
    const passwordHash = body.password === undefined ? null : await context.passwords.hash(body.password);
    const changeType = body.type === 'email_change_current' || body.type === 'email_change_new' ? body.type : undefined;
    if (changeType === 'email_change_current' && !context.doubleConfirmEmailChanges) {
      throw validationFailed('Enable secure email change to generate link for current email');
    }
    const newEmail = changeType ? checkEmail(body.new_email ?? '') : undefined;
    return withOwnerTransaction(pool, async (client) => {
      let user = await findUserByEmail(client, email);
      if (body.type === 'signup' || body.type === 'invite') {
        if (user?.confirmed) throw emailExists();
        if (!user) {
          const id = await insertUser(
            client,
            { email, userMetadata: body.data ?? {}, appMetadata: {}, confirmed: false },
            body.type === 'signup' ? passwordHash : null,
          );
          user = await findUserById(client, id);
        }
      }
      if (!user) throw userNotFound();
      if (body.type === 'invite') await markInvited(client, user.id);
      let issued: { secret: string; otp: string; link: string };
      if (changeType && newEmail !== undefined) {
        // As GoTrue: the user shows the pending address (`new_email`), this one link of type
        // email_change is issued, and the change completes as one asked by PUT /user does: when
        // both addresses' links are followed (or the new one's, without double confirmation).
        if (await findUserByEmail(client, newEmail)) throw emailExists();
        const [token] = await requestEmailChange(context, client, user, newEmail, redirectTo, [changeType]);
        if (!token) throw new Error('requestEmailChange issued no token');
        issued = token;
      } else {
        issued = await tokenMail(client, user, body.type as 'signup' | 'invite' | 'magiclink' | 'recovery', redirectTo);
      }
      const fresh = (await findUserById(client, user.id)) ?? user;
      return {
        ...fresh.user,
        action_link: issued.link,
        email_otp: issued.otp,
        hashed_token: issued.secret,
        verification_type: body.type,
        redirect_to: redirectTo,
      };
    });
  });

  // supabase.auth.admin.inviteUserByEmail: a new, unconfirmed account (or one that never confirmed)
  // is mailed an invite link, which signs it in and confirms the address; answers the user.
  app.post('/invite', async (request) => {
    await context.requireServiceRole(request);
    const body = parse(inviteBody, request.body);
    const email = checkEmail(body.email);
    const { redirect_to: queryRedirect } = parse(redirectQuery, request.query);
    const redirectTo = redirectOrSite(redirects, queryRedirect);
    const { user, mail } = await withOwnerTransaction(pool, async (client) => {
      let invited = await findUserByEmail(client, email);
      if (invited?.confirmed) throw emailExists();
      if (!invited) {
        const id = await insertUser(
          client,
          { email, userMetadata: body.data ?? {}, appMetadata: {}, confirmed: false },
          null,
        );
        invited = await findUserById(client, id);
      }
      if (!invited) throw userNotFound();
      await markInvited(client, invited.id);
      const issued = await tokenMail(client, invited, 'invite', redirectTo);
      return { user: ((await findUserById(client, invited.id)) ?? invited).user, mail: issued.mail };
    });
    await mailer.send(mail);
    return user;
  });

  app.get('/reauthenticate', async (request) => {
    const caller = await context.signedInUser(request);
    const mail = await withOwnerTransaction(pool, async (client) => {
      const user = await findUserById(client, caller.userId);
      if (!user) throw userNotFound();
      // An anonymous user has no address to send the code to (GoTrue's refusal).
      if (!user.email) throw validationFailed('Reauthentication requires the user to have an email or a phone number');
      return (await tokenMail(client, user, 'reauthentication', redirects.siteUrl)).mail;
    });
    await mailer.send(mail);
    return {};
  });
}

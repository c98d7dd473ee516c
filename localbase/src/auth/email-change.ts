// Changing an account's address by mail, as GoTrue's secure e-mail change does: the new address
// is mailed a link and code, and so is the address the account has now; the account keeps its
// address until both are confirmed, so the holder of a session alone (a stolen access token)
// cannot move the account to a mailbox of hers and recover it from there. With
// `[auth.email] double_confirm_changes = false` in supabase/config.toml only the new address is
// asked (GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED off).
//
// Each address has its token (`email_change_new`, `email_change_current`); both links say
// `type=email_change`. auth.users keeps the pending address (`email_change`, shown as
// `new_email`) and how many of the two have confirmed (`email_change_confirm_status`).
import type pg from 'pg';
import type { AuthContext } from './context.ts';
import { emailExists, linkExpired } from './errors.ts';
import { isUniqueViolation } from './input.ts';
import { composeMail, type Mail } from './mail.ts';
import { issueToken, type SpentToken, type TokenType } from './one-time-tokens.ts';
import { changeEmail, countFirstEmailChangeConfirmation, recordEmailChangeRequest, type UserRow } from './users.ts';
import { verifyLink } from './verify-link.ts';

export type EmailChangeTokenType = Extract<TokenType, 'email_change_new' | 'email_change_current'>;
export const EMAIL_CHANGE_TOKEN_TYPES: readonly EmailChangeTokenType[] = ['email_change_new', 'email_change_current'];

/** GoTrue's answer to the first of two confirmations. */
export const ONE_OF_TWO_CONFIRMED =
  'Confirmation link accepted. Please proceed to confirm link sent to the other email';

export interface IssuedChangeToken {
  type: EmailChangeTokenType;
  secret: string;
  otp: string;
  link: string;
  mail: Mail;
}

export function isEmailChangeToken(type: TokenType): type is EmailChangeTokenType {
  return (EMAIL_CHANGE_TOKEN_TYPES as readonly TokenType[]).includes(type);
}

/** Whether a change of this user's address waits for both addresses (an account without one has only the new). */
export function bothAddressesConfirm(context: AuthContext, user: UserRow): boolean {
  return context.doubleConfirmEmailChanges && Boolean(user.email);
}

/** The tokens a change asks for: the new address's, and the current one's when both confirm. */
export function confirmingTokens(context: AuthContext, user: UserRow): EmailChangeTokenType[] {
  return bothAddressesConfirm(context, user) ? ['email_change_new', 'email_change_current'] : ['email_change_new'];
}

/**
 * Records the request to change the user's address to `newEmail`, with no confirmation counted,
 * and issues the tokens of `types` with their mails (sent by the caller after the commit). The
 * tokens of an earlier request for another address stop working; a token of this same address
 * issued before (generate_link asks for one at a time) stays.
 */
export async function requestEmailChange(
  context: AuthContext,
  client: pg.PoolClient,
  user: UserRow,
  newEmail: string,
  redirectTo: string,
  types: readonly EmailChangeTokenType[],
): Promise<IssuedChangeToken[]> {
  await recordEmailChangeRequest(client, user.id, newEmail);
  await client.query(
    `delete from _localbase.auth_tokens
     where user_id = $1 and type = any($2::text[]) and new_email is distinct from $3`,
    [user.id, EMAIL_CHANGE_TOKEN_TYPES, newEmail],
  );
  const change = { from: user.email ?? '', to: newEmail, bothConfirm: bothAddressesConfirm(context, user) };
  const issued: IssuedChangeToken[] = [];
  for (const type of types) {
    const { secret, otp } = await issueToken(client, user.id, type, { newEmail, redirectTo });
    const link = verifyLink(context.linkBase(), secret, 'email_change', redirectTo);
    const recipient = type === 'email_change_new' ? newEmail : (user.email ?? '');
    issued.push({ type, secret, otp, link, mail: composeMail(type, user.id, recipient, link, otp, change) });
  }
  return issued;
}

/**
 * Applies a spent address-change token: the first of two confirmations is only counted
 * (`awaiting-other`); the last switches the account to the new address, confirmed. A token of a
 * request since replaced, or of a change already made, is refused as an expired link.
 */
export async function confirmEmailChange(
  context: AuthContext,
  client: pg.PoolClient,
  user: UserRow,
  token: SpentToken,
): Promise<'awaiting-other' | 'changed'> {
  const pending = (user.user as { new_email?: string }).new_email;
  if (!token.newEmail || token.newEmail !== pending) throw linkExpired();
  if (bothAddressesConfirm(context, user) && (await countFirstEmailChangeConfirmation(client, user.id))) {
    return 'awaiting-other';
  }
  try {
    await changeEmail(client, user.id, token.newEmail);
  } catch (error) {
    if (isUniqueViolation(error)) throw emailExists();
    throw error;
  }
  await client.query(`delete from _localbase.auth_tokens where user_id = $1 and type = any($2::text[])`, [
    user.id,
    EMAIL_CHANGE_TOKEN_TYPES,
  ]);
  return 'changed';
}

// One-time tokens of e-mail links and codes, in _localbase.auth_tokens (auth-schema.ts). Each has
// two forms, as GoTrue's: a link secret (`token` in the link, `token_hash` / `hashed_token` in the
// API) and a 6-digit code (`email_otp`, verified with the e-mail address). Both are random; only
// their sha256 digests are stored. A token is spent by its first successful use, ends after its
// lifetime, and is replaced by the next one issued to the same user for the same purpose. A code
// has 10^6 values, so five wrong codes in a row end the token.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';

export const TOKEN_TYPES = [
  'signup',
  'invite',
  'magiclink',
  'recovery',
  // An address change has a token for each address that confirms it (GoTrue's
  // email_change_token_new and email_change_token_current); both links say `type=email_change`.
  'email_change_new',
  'email_change_current',
  'reauthentication',
] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

/** GoTrue's mailer otp_exp default: links and codes live one hour. */
export const TOKEN_LIFETIME_SECONDS = 3600;
export const OTP_DIGITS = 6;
export const MAX_FAILED_OTP_ATTEMPTS = 5;

export interface IssuedToken {
  /** The link secret: goes into the link and generate_link's `hashed_token`, never into the database. */
  secret: string;
  /** The 6-digit code. */
  otp: string;
}

export interface SpentToken {
  userId: string;
  type: TokenType;
  newEmail: string | null;
  redirectTo: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const otpDigest = (userId: string, type: TokenType, otp: string) => sha256(`${userId}:${type}:${otp}`);

export async function issueToken(
  client: pg.PoolClient,
  userId: string,
  type: TokenType,
  details: { newEmail?: string; redirectTo?: string } = {},
): Promise<IssuedToken> {
  const secret = randomBytes(32).toString('hex');
  const otp = String(randomInt(0, 10 ** OTP_DIGITS)).padStart(OTP_DIGITS, '0');
  await client.query(
    `insert into _localbase.auth_tokens (user_id, type, token_hash, otp_hash, new_email, redirect_to, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
     on conflict (user_id, type) do update set token_hash = excluded.token_hash, otp_hash = excluded.otp_hash,
       new_email = excluded.new_email, redirect_to = excluded.redirect_to, failed_attempts = 0,
       created_at = now(), expires_at = excluded.expires_at`,
    [
      userId,
      type,
      sha256(secret),
      otpDigest(userId, type, otp),
      details.newEmail ?? null,
      details.redirectTo ?? null,
      TOKEN_LIFETIME_SECONDS,
    ],
  );
  return { secret, otp };
}

interface TokenRow {
  id: string;
  user_id: string;
  type: TokenType;
  otp_hash: string;
  new_email: string | null;
  redirect_to: string | null;
  live: boolean;
}

function spent(row: TokenRow): SpentToken {
  return { userId: row.user_id, type: row.type, newEmail: row.new_email, redirectTo: row.redirect_to };
}

/** Spends the token whose link secret this is, if it is live and of one of `types`. */
export async function spendTokenBySecret(
  client: pg.PoolClient,
  secret: string,
  types: readonly TokenType[],
): Promise<SpentToken | undefined> {
  // Deleted whatever its state: an expired token is of no further use either. A token of another
  // type stays, so that a link opened with the wrong type in its URL can still be used right.
  const { rows } = await client.query<TokenRow>(
    `delete from _localbase.auth_tokens where token_hash = $1 and type = any($2::text[])
     returning id, user_id, type, otp_hash, new_email, redirect_to, expires_at > now() as live`,
    [sha256(secret), types],
  );
  const row = rows[0];
  return row?.live ? spent(row) : undefined;
}

/** Spends the user's token of one of `types` whose code this is; a wrong code counts as a failed attempt. */
export async function spendTokenByOtp(
  client: pg.PoolClient,
  userId: string,
  otp: string,
  types: readonly TokenType[],
): Promise<SpentToken | undefined> {
  const { rows } = await client.query<TokenRow>(
    `select id, user_id, type, otp_hash, new_email, redirect_to, expires_at > now() as live
     from _localbase.auth_tokens where user_id = $1 and type = any($2::text[])
     order by created_at desc for update`,
    [userId, types],
  );
  const match = rows.find((row) => row.live && digestsEqual(row.otp_hash, otpDigest(userId, row.type, otp)));
  if (match) {
    await client.query('delete from _localbase.auth_tokens where id = $1', [match.id]);
    return spent(match);
  }
  // Two statements: one statement cannot both update a row and delete it.
  await client.query(
    `update _localbase.auth_tokens set failed_attempts = failed_attempts + 1
     where user_id = $1 and type = any($2::text[])`,
    [userId, types],
  );
  await client.query(
    `delete from _localbase.auth_tokens
     where user_id = $1 and type = any($2::text[]) and (failed_attempts >= $3 or expires_at <= now())`,
    [userId, types, MAX_FAILED_OTP_ATTEMPTS],
  );
  return undefined;
}

function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

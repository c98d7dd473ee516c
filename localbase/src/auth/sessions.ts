// Sessions and refresh tokens in auth.sessions / auth.refresh_tokens, and the Session object.
// Refresh tokens rotate: using one revokes it and issues its child; a spent one presented again
// after the reuse interval ends the whole session.
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { signJwt, type SigningKey } from '../jwt.ts';
import { AuthError } from './errors.ts';

/** The CLI's jwt_expiry. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

export interface SessionSigning {
  /**
   * What signs access tokens: the project's ES256 signing key (as hosted projects created now sign
   * sessions), or the HS256 secret.
   */
  key: string | SigningKey;
  issuer: () => string;
}

/** One way the session's user proved who she is, as GoTrue's `amr` claim lists it. */
export interface AmrEntry {
  method: string;
  timestamp: number;
}

/** The session's assurance level and how it was reached, most recent method first. */
export interface Assurance {
  aal: 'aal1' | 'aal2';
  amr: AmrEntry[];
}

/** Methods that are a second factor: a session that used one is aal2. */
const SECOND_FACTOR_METHODS = ['totp'];

export interface Session {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
}

function newRefreshToken(): string {
  return randomBytes(24).toString('base64url');
}

async function insertRefreshToken(
  client: pg.PoolClient,
  userId: string,
  sessionId: string,
  parent: string | null,
): Promise<string> {
  const token = newRefreshToken();
  await client.query(
    `insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)`,
    [token, userId, parent, sessionId],
  );
  return token;
}

/** Starts an aal1 session, recording how the user signed in (`password`, `otp`, `anonymous`, ...). */
export async function startSession(
  client: pg.PoolClient,
  userId: string,
  method = 'password',
): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = randomUUID();
  await client.query(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at)
     values ($1, $2, now(), now(), 'aal1', now() at time zone 'utc')`,
    [sessionId, userId],
  );
  await recordSessionMethod(client, sessionId, method);
  return { sessionId, refreshToken: await insertRefreshToken(client, userId, sessionId, null) };
}

/**
 * Records (or renews) a method the session's user has proved, as GoTrue's mfa_amr_claims does; a
 * second factor raises the session to aal2, and `factorId` names the factor that did.
 */
export async function recordSessionMethod(
  client: pg.PoolClient,
  sessionId: string,
  method: string,
  factorId?: string,
): Promise<void> {
  await client.query(
    `insert into _localbase.session_amr (session_id, method, authenticated_at) values ($1, $2, now())
     on conflict (session_id, method) do update set authenticated_at = excluded.authenticated_at`,
    [sessionId, method],
  );
  if (SECOND_FACTOR_METHODS.includes(method)) {
    await client.query(`update auth.sessions set aal = 'aal2', factor_id = $2, updated_at = now() where id = $1`, [
      sessionId,
      factorId ?? null,
    ]);
  }
}

/**
 * The session's aal and amr from what it recorded, so that a refreshed access token says what the
 * first one said. A session from before the record began counts as a password sign-in made when
 * the session began (never "now": rules that ask how recently the password was entered read it).
 */
export async function sessionAssurance(client: pg.PoolClient, sessionId: string): Promise<Assurance> {
  const { rows } = await client.query<{ method: string; timestamp: number }>(
    `select method, extract(epoch from authenticated_at)::bigint::integer as timestamp
     from _localbase.session_amr where session_id = $1 order by authenticated_at desc, method`,
    [sessionId],
  );
  if (rows.length === 0) {
    const began = await client.query<{ timestamp: number }>(
      `select extract(epoch from created_at)::bigint::integer as timestamp from auth.sessions where id = $1`,
      [sessionId],
    );
    return { aal: 'aal1', amr: [{ method: 'password', timestamp: began.rows[0]?.timestamp ?? 0 }] };
  }
  const aal = rows.some((row) => SECOND_FACTOR_METHODS.includes(row.method)) ? 'aal2' : 'aal1';
  return { aal, amr: rows.map((row) => ({ method: row.method, timestamp: row.timestamp })) };
}

/**
 * Whether the session's user proved one of `methods` within the last `seconds`, by the time
 * recorded when she did. A refresh copies the `amr` claim into the new access token (GoTrue keeps
 * a session's methods), so only this record tells how long ago the proof was.
 */
export async function provedWithin(
  client: pg.PoolClient,
  sessionId: string,
  methods: readonly string[],
  seconds: number,
): Promise<boolean> {
  const { rows } = await client.query<{ recent: boolean }>(
    `select exists (select 1 from _localbase.session_amr
       where session_id = $1 and method = any($2::text[])
         and authenticated_at > now() - make_interval(secs => $3)) as recent`,
    [sessionId, methods, seconds],
  );
  return rows[0]?.recent === true;
}

/** Whether the session has reached aal2 (as recorded now, whatever its access token says). */
export async function sessionIsAal2(client: pg.PoolClient, sessionId: string): Promise<boolean> {
  const { rows } = await client.query<{ aal2: boolean }>(
    `select coalesce(aal = 'aal2', false) as aal2 from auth.sessions where id = $1`,
    [sessionId],
  );
  return rows[0]?.aal2 === true;
}

/** Ends the user's sessions below aal2 but `keep`, as GoTrue does once a second factor is verified. */
export async function endSessionsBelowAal2(client: pg.PoolClient, userId: string, keep: string): Promise<void> {
  await client.query(
    `delete from auth.sessions where user_id = $1 and id <> $2 and coalesce(aal, 'aal1') < 'aal2'::auth.aal_level`,
    [userId, keep],
  );
}

/** Back to aal1 for the sessions a factor raised, once it is unenrolled (GoTrue's downgrade). */
export async function downgradeSessionsOfFactor(client: pg.PoolClient, factorId: string): Promise<void> {
  await client.query(
    `delete from _localbase.session_amr a using auth.sessions s
     where a.session_id = s.id and s.factor_id = $1 and a.method = any($2::text[])`,
    [factorId, SECOND_FACTOR_METHODS],
  );
  await client.query(
    `update auth.sessions set aal = 'aal1', factor_id = null, updated_at = now() where factor_id = $1`,
    [factorId],
  );
}

/**
 * A fresh refresh token for a session whose access token changes outside a refresh (a verified
 * second factor): the session's live tokens are spent, the new one their child.
 */
export async function reissueRefreshToken(client: pg.PoolClient, userId: string, sessionId: string): Promise<string> {
  const active = await client.query<{ token: string }>(
    `update auth.refresh_tokens set revoked = true, updated_at = now()
     where session_id = $1 and revoked = false returning token`,
    [sessionId],
  );
  return insertRefreshToken(client, userId, sessionId, active.rows.at(-1)?.token ?? null);
}

/**
 * How long a spent refresh token may still be presented (the Supabase CLI's and hosted projects'
 * `refresh_token_reuse_interval`): two tabs refreshing at once, or a client retrying a refresh
 * whose answer it lost, present the same token twice within moments.
 */
export const REFRESH_TOKEN_REUSE_INTERVAL_SECONDS = 10;

export type Rotation =
  | { kind: 'rotated'; userId: string; sessionId: string; refreshToken: string }
  /** A spent token presented after the reuse interval: the session has been ended. */
  | { kind: 'reuse-detected'; userId: string; sessionId: string };

/**
 * Spends a refresh token and returns its successor, following GoTrue's rotation. A token spent
 * within the reuse interval is answered with the session's current token when it is that token's
 * parent (the client lost the answer), else with a new child. A spent token presented later is
 * taken as stolen: GoTrue revokes every refresh token of the session; localbase ends the session
 * itself, so that its access tokens stop working too (every API checks the session). Unlike
 * GoTrue, the "parent of the current token" answer is also bounded by the reuse interval: without
 * the bound, a token one rotation old would hand its holder the session for as long as the owner
 * does not refresh again. The row locks make concurrent refreshes of one session queue up.
 */
export async function rotateRefreshToken(client: pg.PoolClient, token: string): Promise<Rotation> {
  const notFound = () =>
    new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
  // The session is locked before the token, in the order logout deletes them, so the two never deadlock.
  const owner = await client.query<{ session_id: string | null }>(
    'select session_id from auth.refresh_tokens where token = $1',
    [token],
  );
  const sessionId = owner.rows[0]?.session_id;
  if (!sessionId) throw notFound();
  const session = await client.query('select 1 from auth.sessions where id = $1 for update', [sessionId]);
  if (session.rowCount === 0) throw notFound();
  const found = await client.query<{ user_id: string; revoked: boolean; reusable: boolean }>(
    `select user_id, revoked, updated_at + make_interval(secs => $2) > clock_timestamp() as reusable
     from auth.refresh_tokens where token = $1 and session_id = $3 for update`,
    [token, REFRESH_TOKEN_REUSE_INTERVAL_SECONDS, sessionId],
  );
  const row = found.rows[0];
  if (!row) throw notFound();
  if (row.revoked) {
    if (!row.reusable) {
      await client.query('delete from auth.sessions where id = $1', [sessionId]);
      return { kind: 'reuse-detected', userId: row.user_id, sessionId };
    }
    const active = await client.query<{ token: string; parent: string | null }>(
      `select token, parent from auth.refresh_tokens
       where session_id = $1 and revoked = false order by id desc limit 1`,
      [sessionId],
    );
    const current = active.rows[0];
    if (current && current.parent === token) {
      return { kind: 'rotated', userId: row.user_id, sessionId, refreshToken: current.token };
    }
  }
  await client.query(
    'update auth.refresh_tokens set revoked = true, updated_at = now() where token = $1 and revoked = false',
    [token],
  );
  await client.query(
    `update auth.sessions set refreshed_at = now() at time zone 'utc', updated_at = now() where id = $1`,
    [sessionId],
  );
  return {
    kind: 'rotated',
    userId: row.user_id,
    sessionId,
    refreshToken: await insertRefreshToken(client, row.user_id, sessionId, token),
  };
}

/** Whether the session exists and its user is not banned (a ban set by SQL, without ending the sessions, counts too). */
export async function sessionExists(client: pg.PoolClient, sessionId: string): Promise<boolean> {
  const result = await client.query(
    `select 1 from auth.sessions s join auth.users u on u.id = s.user_id
     where s.id = $1 and not coalesce(u.banned_until > now(), false)`,
    [sessionId],
  );
  return (result.rowCount ?? 0) > 0;
}

export type LogoutScope = 'global' | 'local' | 'others';

/** Ends sessions (their refresh tokens cascade away); access tokens naming them stop working. */
export async function endSessions(
  client: pg.PoolClient,
  userId: string,
  sessionId: string,
  scope: LogoutScope,
): Promise<void> {
  // Every variant names $2 so that its type is known even when the condition ignores it.
  const condition = { global: '$2::uuid = $2::uuid or true', local: 'id = $2::uuid', others: 'id <> $2::uuid' }[scope];
  await client.query(`delete from auth.sessions where user_id = $1 and (${condition})`, [userId, sessionId]);
}

export async function buildSession(
  signing: SessionSigning,
  user: Record<string, unknown>,
  sessionId: string,
  refreshToken: string,
  /**
   * How the session was started, as GoTrue's `amr` names it (`password`, `otp`, `recovery`, ...), or
   * the session's recorded assurance (sessionAssurance).
   */
  assurance: string | Assurance = 'password',
): Promise<Session> {
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + ACCESS_TOKEN_LIFETIME_SECONDS;
  const { aal, amr } =
    typeof assurance === 'string' ? { aal: 'aal1', amr: [{ method: assurance, timestamp: now }] } : assurance;
  const accessToken = await signJwt(
    {
      iss: signing.issuer(),
      sub: user.id as string,
      aud: 'authenticated',
      exp: expiresAt,
      iat: now,
      email: (user.email as string | null) ?? '',
      phone: '',
      app_metadata: user.app_metadata as Record<string, unknown>,
      user_metadata: user.user_metadata as Record<string, unknown>,
      role: 'authenticated',
      aal,
      amr,
      session_id: sessionId,
      is_anonymous: user.is_anonymous === true,
    },
    signing.key,
  );
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user,
  };
}

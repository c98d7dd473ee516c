// Sessions and refresh tokens in auth.sessions / auth.refresh_tokens, and the Session object.
// Refresh tokens rotate: using one revokes it and issues its child; a spent one presented again
// after the reuse interval ends the whole session.
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { signJwt } from '../jwt.ts';
import { AuthError } from './errors.ts';

/** The CLI's jwt_expiry. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

export interface SessionSigning {
  jwtSecret: string;
  issuer: () => string;
}

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

export async function startSession(
  client: pg.PoolClient,
  userId: string,
): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = randomUUID();
  await client.query(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at)
     values ($1, $2, now(), now(), 'aal1', now() at time zone 'utc')`,
    [sessionId, userId],
  );
  return { sessionId, refreshToken: await insertRefreshToken(client, userId, sessionId, null) };
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
  /** How the session was started, as GoTrue's `amr` names it: `password`, `otp`, `recovery`, ... */
  method = 'password',
): Promise<Session> {
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + ACCESS_TOKEN_LIFETIME_SECONDS;
  const accessToken = await signJwt(
    {
      iss: signing.issuer(),
      sub: user.id as string,
      aud: 'authenticated',
      exp: expiresAt,
      iat: now,
      email: user.email as string,
      phone: '',
      app_metadata: user.app_metadata as Record<string, unknown>,
      user_metadata: user.user_metadata as Record<string, unknown>,
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method, timestamp: now }],
      session_id: sessionId,
      is_anonymous: false,
    },
    signing.jwtSecret,
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

// Whether a channel's token still holds when something is delivered to it. A channel is checked when
// it joins and when its token changes; between those its token may expire, its session may end
// (a logout, a ban, which ends every session of the user) or its user may be banned by SQL. Hosted
// Realtime closes a channel when its token expires; localbase also closes one whose session ended
// or whose user is banned, since its own auth ends sessions on both. The check runs at every
// delivery on a private topic and every postgres_changes delivery (the latter inside the
// visibility statement, visibility.ts), for all the receivers of a batch at once: the expiry in
// memory, the sessions in one statement. A channel that fails is closed with Realtime's own
// system error and phx_close (socket.ts), as hosted Realtime closes a channel whose token expired.
import type pg from 'pg';
import type { Claims, VerifiedToken } from '../jwt.ts';
import { runOwnerReadStatement } from '../request-transaction.ts';

/** A channel as the guard sees it: its current token, and how to close it. */
export interface GuardedChannel {
  token: VerifiedToken;
  /** Closes the channel with Realtime's `system` error carrying `message`, then `phx_close`. */
  close(message: string): void;
}

/** The system message of a channel whose token's session ended or whose user is banned. */
export const SESSION_ENDED_MESSAGE = 'The session of this token has ended';

/**
 * Realtime's message for a token past its `exp` ("Token has expired N seconds ago"), or undefined
 * while it holds. As hosted Realtime: valid while `exp` is after now, with no clock skew (joins
 * allow 30 s of it, jwt.ts, but a channel lives from one token refresh to the next).
 */
export function expiredMessage(token: VerifiedToken, nowMs: number = Date.now()): string | undefined {
  const exp = token.claims.exp;
  const now = Math.floor(nowMs / 1000);
  if (exp === undefined || exp > now) return undefined;
  return `Token has expired ${now - exp} seconds ago`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user token names its session; API keys have none. A malformed id names no live session. */
export function sessionOf(claims: Claims): string | null {
  if (claims.session_id === undefined) return null;
  return UUID.test(claims.session_id) ? claims.session_id.toLowerCase() : '00000000-0000-0000-0000-000000000000';
}

/** The same rule as every API request's (require_live_session): the session exists, its user is not banned. */
const LIVE_SESSIONS_SQL = `select s.id::text as id from auth.sessions s
  join auth.users u on u.id = s.user_id and not coalesce(u.banned_until > now(), false)
  where s.id = any($1::uuid[])`;

/** Which of `sessions` are live, in one read-only statement. */
export async function liveSessions(pool: pg.Pool, sessions: readonly string[]): Promise<Set<string>> {
  const result = await runOwnerReadStatement(pool, LIVE_SESSIONS_SQL, [sessions]);
  return new Set((result.rows as { id: string }[]).map((row) => row.id));
}

/**
 * Closes every channel whose token has expired or whose session is not live, and answers the others:
 * the expiry is read from each token, the sessions asked in one lookup for all of them. A failed
 * lookup rejects, closing nothing: the caller then delivers to none of the channels with a session.
 */
export async function admitChannels<Channel extends GuardedChannel>(
  channels: Iterable<Channel>,
  lookup: (sessions: readonly string[]) => Promise<Set<string>>,
  nowMs: number = Date.now(),
): Promise<Set<Channel>> {
  const unexpired: Channel[] = [];
  const sessions = new Set<string>();
  for (const channel of channels) {
    const expired = expiredMessage(channel.token, nowMs);
    if (expired !== undefined) {
      channel.close(expired);
      continue;
    }
    unexpired.push(channel);
    const session = sessionOf(channel.token.claims);
    if (session !== null) sessions.add(session);
  }
  const live = sessions.size > 0 ? await lookup([...sessions]) : new Set<string>();
  const admitted = new Set<Channel>();
  for (const channel of unexpired) {
    const session = sessionOf(channel.token.claims);
    if (session === null || live.has(session)) admitted.add(channel);
    else channel.close(SESSION_ENDED_MESSAGE);
  }
  return admitted;
}

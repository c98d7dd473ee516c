// A logged-out (or banned) user's token stops working at once, not when it expires: every request
// with a user token checks in its own transaction that the token's session still exists. The check
// is a database function installed at boot; its refusal (SQLSTATE LB401) becomes SessionEndedError.
import type pg from 'pg';
import type { Claims } from './jwt.ts';
import { installIfChanged } from './installed-sql.ts';

export class SessionEndedError extends Error {
  constructor() {
    super('the session of this access token has ended (logged out)');
  }
}

/**
 * The live-session check raises (SQLSTATE LB401) instead of answering, so that a request pipelined
 * behind the setup never runs for a logged-out token: the error aborts the transaction, every
 * statement after it fails with 25P02, and the trailing commit becomes a rollback. SECURITY DEFINER
 * because the setup has already switched to the caller's role, which cannot read auth.sessions.
 * Installed at boot in localbase's own schema, never in a bundle.
 */
const SESSION_GUARD_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;
grant usage on schema _localbase to anon, authenticated, service_role;
create or replace function _localbase.require_live_session(p_session uuid) returns boolean
language plpgsql stable security definer set search_path = ''
as $$
begin
  -- A banned user's session counts as ended, also when the ban was set without ending it.
  if p_session is not null and not exists (
    select 1 from auth.sessions s join auth.users u on u.id = s.user_id
    where s.id = p_session and not coalesce(u.banned_until > now(), false)
  ) then
    raise exception 'session_ended' using errcode = 'LB401';
  end if;
  return true;
end
$$;
revoke execute on function _localbase.require_live_session(uuid) from public;
grant execute on function _localbase.require_live_session(uuid) to anon, authenticated, service_role;`;

const SESSION_ENDED_SQLSTATE = 'LB401';

export async function installSessionGuard(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'session-guard',
    sql: SESSION_GUARD_SQL,
    tables: [],
    functions: ['_localbase.require_live_session(uuid)'],
  });
}

/** A request's failure as its caller should see it: the live-session check's refusal is SessionEndedError. */
export function sessionEndedOr(error: unknown): unknown {
  return (error as { code?: string }).code === SESSION_ENDED_SQLSTATE ? new SessionEndedError() : error;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user token names its session; API keys have none. A malformed id counts as no live session. */
export function sessionIdOf(claims: Claims): string | null {
  if (claims.session_id === undefined) return null;
  return UUID.test(claims.session_id) ? claims.session_id : '00000000-0000-0000-0000-000000000000';
}

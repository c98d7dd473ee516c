// One API request = one transaction on one pooled client, as PostgREST runs it: switch to the
// caller's role, expose the JWT claims and request GUCs (auth.uid() and policies read them), run
// the work, commit or roll back. GET runs read-only. The client is never held across anything that
// waits on another request, because on PGlite the pool has exactly one session.
import type pg from 'pg';
import { limitStatements } from '#db/database.ts';
import type { ApiRole, Claims, VerifiedToken } from './jwt.ts';
import { installIfChanged } from './installed-sql.ts';
import { preparedQuery, trimPrepared } from './prepared-statements.ts';

export interface RequestContext {
  role: ApiRole;
  claims: Claims;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The Cookie header's pairs, as PostgREST exposes them in `request.cookies`. */
  cookies?: Record<string, string> | undefined;
  readOnly: boolean;
  /**
   * PostgREST's db-pre-request: the function (an SQL name, already quoted) called after the setup
   * and before the statement. Its exception is the request's error; what it sets in
   * response.headers / response.status the statement reads back as the function's own.
   */
  preRequest?: string | undefined;
  /** Settings a called function carries that PostgREST hoists (db-hoisted-tx-settings), set transaction-locally. */
  settings?: readonly (readonly [string, string])[] | undefined;
  /** A called function's own default_transaction_isolation, which PostgREST starts the transaction with. */
  isolation?: IsolationLevel | undefined;
}

export const ISOLATION_LEVELS = ['serializable', 'repeatable read', 'read committed', 'read uncommitted'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

/**
 * One slow query must not hang the server. Each request's statements get its role's timeout, the
 * values a hosted Supabase project sets on these roles (`alter role ... set statement_timeout`,
 * which the platform stand-in sets too: supabase/platform/00_roles.sql): anon 3 s, authenticated
 * 8 s, service_role none (null; the management API and localbase's own work run without one too).
 * A role's setting applies at login, and requests switch roles inside one login, so each request
 * sets its role's `statement_timeout` in its transaction, as PostgREST applies the impersonated
 * role's settings; PostgreSQL then cancels with 57014. PGlite cannot interrupt a statement from
 * inside (WASM has no timer signal): there the engine's watchdog stops it (db/pglite-engine.ts)
 * and answers 57014 the same way.
 * A request that cannot get a connection within ACQUIRE_TIMEOUT_MS is answered with
 * ConnectionBusyError instead of queueing forever.
 */
export const STATEMENT_TIMEOUTS_MS: Readonly<Record<ApiRole, number | null>> = Object.freeze({
  anon: 3_000,
  authenticated: 8_000,
  service_role: null,
});
export const ACQUIRE_TIMEOUT_MS = 10_000;

let activeTimeouts: Readonly<Record<ApiRole, number | null>> = STATEMENT_TIMEOUTS_MS;

export function statementTimeoutFor(role: ApiRole): number | null {
  return activeTimeouts[role];
}

/**
 * For tests only: shorter timeouts, so that a test of the cut does not wait seconds. Returns the
 * function that puts the production values back.
 */
export function overrideStatementTimeoutsForTests(timeouts: Partial<Record<ApiRole, number | null>>): () => void {
  activeTimeouts = { ...STATEMENT_TIMEOUTS_MS, ...timeouts };
  return () => {
    activeTimeouts = STATEMENT_TIMEOUTS_MS;
  };
}

/**
 * The statement timeout a request runs with: its role's, unless a called function hoists its own
 * `statement_timeout` (longer or shorter: PostgREST lets the function's owner decide, that is the
 * point of hoisting). Only the values PostgreSQL accepts are read; anything else keeps the role's.
 */
function requestTimeoutMs(context: RequestContext): number | null {
  const own = context.settings?.find(([name]) => name === 'statement_timeout');
  const parsed = own === undefined ? undefined : parseDurationMs(own[1]);
  return parsed === undefined ? statementTimeoutFor(context.role) : parsed;
}

const DURATION_UNITS_MS: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration setting as PostgreSQL reads it (a bare number is milliseconds); 0 is none (null). */
export function parseDurationMs(value: string): number | null | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?\s*$/.exec(value);
  if (match === null) return undefined;
  const ms = Math.round(Number(match[1]) * (DURATION_UNITS_MS[match[2] ?? 'ms'] as number));
  return ms === 0 ? null : ms;
}

/** The `statement_timeout` setting for a timeout in milliseconds: '0' turns it off. */
function statementTimeoutSetting(timeoutMs: number | null): string {
  return timeoutMs === null ? '0' : `${timeoutMs}ms`;
}

/**
 * Acquires a client for a request: its statements are limited to `timeoutMs` on PGlite's engine (a
 * no-op on PostgreSQL, where the setup's `statement_timeout` does it), until releaseRequestClient
 * lifts the limit for whatever uses the connection next.
 */
async function acquireRequestClient(pool: pg.Pool, timeoutMs: number | null): Promise<pg.PoolClient> {
  const client = await acquireClient(pool);
  limitStatements(client, timeoutMs);
  return client;
}

function releaseRequestClient(client: pg.PoolClient, broken: boolean): void {
  limitStatements(client, null);
  client.release(broken);
}

export class ConnectionBusyError extends Error {
  constructor(waitedMs: number) {
    super(`no database connection became free within ${waitedMs} ms`);
  }
}

/** Clients that already carry the listener below (a client is reused across many requests). */
const guardedClients = new WeakSet<pg.PoolClient>();

/**
 * pg's pool listens for errors only on idle clients. A checked-out client whose server goes away
 * (PostgreSQL restarted: 57P01, then EPIPE) emits 'error', which without a listener would crash
 * the process. The failure reaches the request through its query instead, and the client is
 * discarded on release, so the event itself needs no handling beyond being heard.
 */
function guardAgainstConnectionErrors(client: pg.PoolClient): pg.PoolClient {
  if (!guardedClients.has(client)) {
    guardedClients.add(client);
    client.on('error', () => {});
  }
  return client;
}

/** pool.connect() with a deadline; a connection that arrives too late goes straight back. */
export async function acquireClient(
  pool: Pick<pg.Pool, 'connect'>,
  timeoutMs = ACQUIRE_TIMEOUT_MS,
): Promise<pg.PoolClient> {
  const pending = pool.connect().then(guardAgainstConnectionErrors);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ConnectionBusyError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([pending, deadline]);
  } catch (error) {
    pending.then(
      (client) => client.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

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

const SETUP_SQL = `select set_config('role', $1, true),
  set_config('request.jwt.claims', $2, true),
  set_config('request.method', $3, true),
  set_config('request.path', $4, true),
  set_config('request.headers', $5, true),
  set_config('request.cookies', $8, true),
  set_config('statement_timeout', $6, true),
  _localbase.require_live_session($7::uuid)`;

/** The hoisted settings of a called function, after the request's own (its statement_timeout wins). */
function settingsSql(settings: readonly (readonly [string, string])[]): { text: string; values: string[] } {
  const values = settings.flat();
  const calls = settings.map((_setting, index) => `set_config($${2 * index + 1}, $${2 * index + 2}, true)`);
  return { text: `select ${calls.join(', ')}`, values };
}

function beginAndSetup(client: pg.PoolClient, context: RequestContext): Promise<pg.QueryResult>[] {
  const mode = [context.readOnly ? 'read only' : '', context.isolation ? `isolation level ${context.isolation}` : '']
    .filter(Boolean)
    .join(' ');
  const settings = context.settings ?? [];
  return [
    client.query(mode === '' ? 'begin' : `begin ${mode}`),
    // Named, so each connection parses and plans it once.
    client.query({
      name: 'localbase_request_setup',
      text: SETUP_SQL,
      values: [
        context.role,
        JSON.stringify(context.claims),
        context.method,
        context.path,
        JSON.stringify(context.headers),
        statementTimeoutSetting(statementTimeoutFor(context.role)),
        sessionIdOf(context.claims),
        JSON.stringify(context.cookies ?? {}),
      ],
    }),
    ...(settings.length > 0 ? [client.query(settingsSql(settings))] : []),
    ...(context.preRequest ? [client.query(`select ${context.preRequest}()`)] : []),
  ];
}

function sessionEndedOr(error: unknown): unknown {
  return (error as { code?: string }).code === SESSION_ENDED_SQLSTATE ? new SessionEndedError() : error;
}

export async function withRequestTransaction<T>(
  pool: pg.Pool,
  context: RequestContext,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await acquireRequestClient(pool, requestTimeoutMs(context));
  let broken = false;
  try {
    await trimPrepared(client);
    await pipelined(client, () => beginAndSetup(client, context)).catch(async (error: unknown) => {
      broken = !(await rollBack(client));
      throw sessionEndedOr(error);
    });
    return await commitOrRollback(
      client,
      () => work(client),
      () => (broken = true),
    );
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * One statement as a whole request transaction in a single round trip: begin, setup, the statement
 * (prepared, see prepared-statements.ts) and commit are pipelined. Only for statements whose result
 * needs no further check that could still call for a rollback (a write that must return exactly one
 * row does: use withRequestTransaction for it). If the
 * setup or the statement fails, the transaction is already aborted and the pipelined commit rolls
 * it back, so nothing is written.
 */
export async function runRequestStatement(
  pool: pg.Pool,
  context: RequestContext,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult> {
  const client = await acquireRequestClient(pool, requestTimeoutMs(context));
  let broken = false;
  try {
    await trimPrepared(client);
    const answered = await pipelined(client, () => [
      ...beginAndSetup(client, context),
      client.query(preparedQuery(client, text, values)),
      client.query('commit'),
    ]).catch(async (error: unknown) => {
      // Normally the commit has rolled back already; this covers a failure of begin itself.
      broken = !(await rollBack(client));
      throw sessionEndedOr(error);
    });
    return answered[answered.length - 2] as pg.QueryResult;
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * One read-only statement as the database owner (no role switch: the statement may switch roles
 * itself, as realtime's read check does), in one round trip: begin, the timeout, the statement
 * (prepared) and commit are pipelined as in runRequestStatement. It runs on behalf of signed-in
 * readers, so it gets the `authenticated` timeout, on PostgreSQL and under PGlite's watchdog alike.
 * `read write` is for a statement that undoes its own writes (realtime's channel authorization
 * inserts probe rows inside a block it rolls back).
 */
export async function runOwnerReadStatement(
  pool: pg.Pool,
  text: string,
  values: unknown[],
  access: 'read only' | 'read write' = 'read only',
): Promise<pg.QueryResult> {
  const client = await acquireRequestClient(pool, statementTimeoutFor('authenticated'));
  let broken = false;
  try {
    await trimPrepared(client);
    const [, , result] = await pipelined(
      client,
      () =>
        [
          client.query(`begin ${access}`),
          client.query("select set_config('statement_timeout', $1, true)", [
            statementTimeoutSetting(statementTimeoutFor('authenticated')),
          ]),
          client.query(preparedQuery(client, text, values)),
          client.query('commit'),
        ] as const,
    ).catch(async (error: unknown) => {
      broken = !(await rollBack(client));
      throw error;
    });
    return result;
  } finally {
    releaseRequestClient(client, broken);
  }
}

/**
 * Sends the given queries back to back (pg 8.23's pipeline mode, `Client#pipeline`) instead of one
 * round trip each: `begin`, the request setup and, for one-statement requests, the statement and
 * `commit` need no answer from each other. The pools are opened elsewhere without pipelining, so it
 * is switched on for these queries only, and off again once all are answered, before anything else
 * is sent on the connection. A one-statement request costs one round trip instead of three.
 */
async function pipelined<T extends readonly Promise<unknown>[]>(
  client: pg.PoolClient,
  send: () => T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const pipelineable = client as unknown as { pipeline?: boolean };
  const previous = pipelineable.pipeline;
  pipelineable.pipeline = true;
  // pg writes each protocol message to the socket as it is queued; corking the socket while the
  // queries are queued makes them one write (one system call, one wake-up of the database).
  const socket = (client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } })
    .connection?.stream;
  try {
    socket?.cork?.();
    let pending: T;
    try {
      pending = send();
    } finally {
      socket?.uncork?.();
    }
    // Settle all before leaving pipeline mode: a failed begin must not strand the setup.
    const settled = await Promise.allSettled(pending);
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
      [K in keyof T]: Awaited<T[K]>;
    };
  } finally {
    pipelineable.pipeline = previous;
  }
}

/**
 * Finishes the open transaction: commit after work, roll back when it throws. A client whose
 * rollback fails is in an unknown state; markBroken lets the caller discard it from the pool.
 */
async function commitOrRollback<T>(client: pg.PoolClient, work: () => Promise<T>, markBroken: () => void): Promise<T> {
  try {
    const result = await work();
    await client.query('commit');
    return result;
  } catch (error) {
    if (!(await rollBack(client))) markBroken();
    throw error;
  }
}

/**
 * Rolls the open transaction back; false when that failed and the connection's state is unknown.
 * A statement whose parameters could not be serialised leaves half a message on the wire, and the
 * server answers the next message (the first rollback) with a protocol error; the second rollback
 * then goes through. That matters on PGlite, whose one session outlives a discarded connection:
 * left aborted, it would fail every later request.
 */
async function rollBack(client: pg.PoolClient): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await client.query('rollback');
      return true;
    } catch {
      // Tried again once, then given up: the caller discards the connection.
    }
  }
  return false;
}

export interface OwnerTransactionOptions {
  /** Runs `begin read only`: for work that only reads. */
  readOnly?: boolean;
}

/** Runs work as the database owner (no role switch) in one transaction: auth, storage bookkeeping. */
export async function withOwnerTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: OwnerTransactionOptions = {},
): Promise<T> {
  const client = await acquireClient(pool);
  let broken = false;
  try {
    await client.query(options.readOnly === true ? 'begin read only' : 'begin');
    return await commitOrRollback(
      client,
      () => work(client),
      () => (broken = true),
    );
  } finally {
    client.release(broken);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user token names its session; API keys have none. A malformed id counts as no live session. */
function sessionIdOf(claims: Claims): string | null {
  if (claims.session_id === undefined) return null;
  return UUID.test(claims.session_id) ? claims.session_id : '00000000-0000-0000-0000-000000000000';
}

/** The context of an HTTP request made with a verified token; GET and HEAD run read-only. */
export function httpRequestContext(
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined> },
  verified: VerifiedToken,
): RequestContext {
  return {
    role: verified.role,
    claims: verified.claims,
    method: request.method,
    path: request.url.split('?')[0] ?? '/',
    headers: exposedHeaders(request.headers),
    cookies: requestCookies(request.headers.cookie),
    readOnly: request.method === 'GET' || request.method === 'HEAD',
  };
}

/**
 * Lower-cased request headers as PostgREST exposes them in `request.headers`: all of them but the
 * Cookie header, whose pairs are `request.cookies` instead.
 */
export function exposedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const exposed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.toLowerCase() === 'cookie') continue;
    exposed[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return exposed;
}

/**
 * The Cookie header as PostgREST reads it into `request.cookies`: pairs split at `;`, leading blanks
 * dropped, name and value split at the first `=` (no `=`: an empty value), values kept as sent (no
 * unquoting or decoding); of a name sent twice the last counts.
 */
export function requestCookies(header: string | string[] | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of text.split(';')) {
    const pair = part.trimStart();
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const [name, value] = equals < 0 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
    Object.defineProperty(cookies, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return cookies;
}

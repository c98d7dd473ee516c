// The statements that open a request's transaction, as PostgREST sends them: begin (read-only,
// isolation level), then one setup statement that switches to the caller's role, exposes the JWT
// claims and request settings that auth.uid() and policies read, sets the statement timeout and
// checks the session is live; then a called function's hoisted settings and the db-pre-request
// function. They are queued together (pipeline.ts) and answered in one round trip.
import type pg from 'pg';
import type { RequestContext } from './request-context.ts';
import { sessionIdOf } from './session-guard.ts';
import { statementTimeoutFor, statementTimeoutSetting } from './statement-timeouts.ts';

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

/**
 * Queues begin, the setup, the hoisted settings and the pre-request call on the client without
 * waiting: the caller sends them inside pipelined(), with or without the statement and commit.
 */
export function beginAndSetup(client: pg.PoolClient, context: RequestContext): Promise<pg.QueryResult>[] {
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

// How long one request's statements may run: its role's timeout (as a hosted Supabase project sets
// on the API roles) or the one a called function hoists, and the setting that turns it into
// `statement_timeout`. Kept apart from the transaction code because tests shorten the timeouts.
import type { ApiRole } from './jwt.ts';
import type { RequestContext } from './request-context.ts';

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
 */
export const STATEMENT_TIMEOUTS_MS: Readonly<Record<ApiRole, number | null>> = Object.freeze({
  anon: 3_000,
  authenticated: 8_000,
  service_role: null,
});

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
export function requestTimeoutMs(context: RequestContext): number | null {
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
export function statementTimeoutSetting(timeoutMs: number | null): string {
  return timeoutMs === null ? '0' : `${timeoutMs}ms`;
}

// PostgREST's error body `{code, details, hint, message}` and its status mapping for SQLSTATEs.
import type { ApiRole } from '../jwt.ts';

export interface PostgrestErrorBody {
  code: string;
  details: string | null;
  hint: string | null;
  message: string;
}

export class PostgrestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
  ) {
    super(message);
  }

  body(): PostgrestErrorBody {
    return { code: this.code, details: this.details, hint: this.hint, message: this.message };
  }
}

export const badRequest = (message: string, details: string | null = null, hint: string | null = null) =>
  new PostgrestError(400, 'PGRST100', message, details, hint);

export const unknownTable = (name: string) =>
  new PostgrestError(
    404,
    'PGRST205',
    `Could not find the table 'public.${name}' in the schema cache`,
    null,
    null,
  );

export const unknownColumn = (column: string, table: string) =>
  new PostgrestError(400, '42703', `column ${table}.${column} does not exist`);

export const unknownFunction = (name: string, argumentNames: string[]) =>
  new PostgrestError(
    404,
    'PGRST202',
    `Could not find the function public.${name}(${argumentNames.join(', ')}) in the schema cache`,
    `Searched for the function public.${name} with parameters ${argumentNames.join(', ') || 'none'}, but no matches were found in the schema cache.`,
    null,
  );

export const singleRowExpected = (rows: number) =>
  new PostgrestError(
    406,
    'PGRST116',
    'JSON object requested, multiple (or no) rows returned',
    `The result contains ${rows} rows`,
    null,
  );

interface DatabaseError {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
}

/** An error the database answered with a SQLSTATE (not a Node socket error such as EPIPE, also five capitals). */
export function isDatabaseError(error: unknown): error is DatabaseError {
  return typeof error === 'object' && error !== null && typeof (error as DatabaseError).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as DatabaseError).code ?? '') && !('errno' in error) && !('syscall' in error);
}

/**
 * The connection to the database broke (PostgreSQL restarting or gone): a socket error, or pg's
 * own words for a connection that ended. Not the request's fault, and worth retrying.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  if (code !== undefined && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)) return true;
  return /Connection terminated|connection error|not queryable|Client was closed/i.test(message ?? '');
}

/** PostgREST's answer while it cannot reach the database (PGRST001, 503). */
export const connectionLost = (detail: string) =>
  new PostgrestError(503, 'PGRST001', 'Database client error. Retrying the connection.', detail, null);

/**
 * PostgREST's status for a SQLSTATE (its documented table, in the order PostgREST's mapSQLtoHTTP
 * checks it), with one deliberate difference: PostgREST answers 500 for every P0xxx but P0001,
 * while this project's functions raise P0002..P0999 as their stable client-error codes (a handle
 * already taken, a group that is full), so localbase answers them 400 like P0001. Callers should
 * decide on `code`, which is the same on both: a hosted project answers those codes with 500.
 */
export function statusForSqlState(code: string, role: ApiRole, message = ''): number {
  const exact: Record<string, number> = {
    '23503': 409, // foreign_key_violation
    '23505': 409, // unique_violation
    '25006': 405, // read_only_sql_transaction
    '53400': 500, // configuration_limit_exceeded
    '57P01': 503, // admin_shutdown: the server is going away
    '42883': 404, // undefined_function
    '42P01': 404, // undefined_table
    '42P17': 500, // infinite recursion in a policy
  };
  if (code === '42501') return role === 'anon' ? 401 : 403;
  // cardinality_violation: a client error only for pg-safeupdate's "requires a WHERE clause".
  if (code === '21000') return message.endsWith('requires a WHERE clause') ? 400 : 500;
  // invalid_parameter_value: PostgREST reads "role ... does not exist" as a bad JWT role.
  if (code === '22023') return message.startsWith('role') && message.endsWith('does not exist') ? 401 : 400;
  const found = exact[code];
  if (found !== undefined) return found;
  if (code.startsWith('PT')) {
    const status = /^PT(\d{3})$/.exec(code);
    return status ? Number(status[1]) : 500;
  }
  const byClass: Record<string, number> = {
    '08': 503, // connection exception
    '09': 500, // triggered action exception
    '0L': 403, // invalid grantor
    '0P': 403, // invalid role specification
    '25': 500, // invalid transaction state
    '28': 403, // invalid authorization specification
    '2D': 500, // invalid transaction termination
    '38': 500, // external routine exception
    '39': 500, // external routine invocation exception
    '3B': 500, // savepoint exception
    '40': 500, // transaction rollback
    '53': 503, // insufficient resources
    '54': 500, // program limit exceeded
    '55': 500, // object not in prerequisite state
    '57': 500, // operator intervention (57014, a statement timeout, included)
    '58': 500, // system error
    F0: 500, // configuration file error
    HV: 500, // foreign data wrapper error
    P0: 400, // P0001 (raise) and this project's own P0xxx codes: see above
    XX: 500, // internal error
  };
  // Everything else, classes 22 (data exception) and 23 (integrity) among them: the client's input.
  return byClass[code.slice(0, 2)] ?? 400;
}

export function fromDatabaseError(error: DatabaseError, role: ApiRole): PostgrestError {
  const code = error.code ?? 'XX000';
  return new PostgrestError(statusForSqlState(code, role, error.message), code, error.message, error.detail ?? null, error.hint ?? null);
}

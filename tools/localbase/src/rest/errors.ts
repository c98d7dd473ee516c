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

export function isDatabaseError(error: unknown): error is DatabaseError {
  return typeof error === 'object' && error !== null && typeof (error as DatabaseError).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as DatabaseError).code ?? '');
}

/** The status table of docs/backend-compat.md ("Errors" under Data API). */
export function statusForSqlState(code: string, role: ApiRole): number {
  if (code === '42501') return role === 'anon' ? 401 : 403;
  if (code === '23505' || code === '23503') return 409;
  if (code.startsWith('23') || code === 'P0001') return 400;
  const custom = /^PT(\d{3})$/.exec(code);
  if (custom) return Number(custom[1]);
  if (code === '42P01' || code === '42883') return 404;
  if (code.startsWith('40') || code === '42P17' || code === 'XX000') return 500;
  if (code === '57014') return 504;
  if (code === '25006') return 405;
  return 400;
}

export function fromDatabaseError(error: DatabaseError, role: ApiRole): PostgrestError {
  const code = error.code ?? 'XX000';
  return new PostgrestError(statusForSqlState(code, role), code, error.message, error.detail ?? null, error.hint ?? null);
}

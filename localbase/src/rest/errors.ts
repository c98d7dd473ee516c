// PostgREST's error body `{code, details, hint, message}`, its errors word for word (PostgREST 14,
// Error.hs), and the status mapping for SQLSTATEs.
import type { ApiRole } from '../jwt.ts';
import type { CatalogSnapshot } from './catalog.ts';
import { bestFuzzyMatch, fuzzyMatches } from './fuzzy.ts';
import { relationshipKey, type Relationship } from './relationships.ts';

export interface PostgrestErrorBody {
  code: string;
  details: unknown;
  hint: string | null;
  message: string;
}

export class PostgrestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
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

export const invalidBody = (message: string) => new PostgrestError(400, 'PGRST102', message);

export const invalidRange = (details: string) =>
  new PostgrestError(416, 'PGRST103', 'Requested range not satisfiable', details);

export const invalidPutFilters = () =>
  new PostgrestError(405, 'PGRST105', "Filters must include all and only primary key columns with 'eq' operators");

export const unacceptableSchema = (schema: string, exposed: readonly string[]) =>
  new PostgrestError(
    406,
    'PGRST106',
    `Invalid schema: ${schema}`,
    null,
    `Only the following schemas are exposed: ${exposed.join(', ')}`,
  );

export const mediaTypeUnavailable = (accepted: string[]) =>
  new PostgrestError(406, 'PGRST107', `None of these media types are available: ${accepted.join(', ')}`);

export const notEmbedded = (resource: string) =>
  new PostgrestError(
    400,
    'PGRST108',
    `'${resource}' is not an embedded resource in this request`,
    null,
    `Verify that '${resource}' is included in the 'select' query parameter.`,
  );

export const putLimitNotAllowed = () =>
  new PostgrestError(400, 'PGRST114', 'limit/offset querystring parameters are not allowed for PUT');

export const putPrimaryKeyMismatch = () =>
  new PostgrestError(400, 'PGRST115', 'Payload values do not match URL in primary key column(s)');

export const singleRowExpected = (rows: number) =>
  new PostgrestError(
    406,
    'PGRST116',
    'Cannot coerce the result to a single JSON object',
    `The result contains ${rows} rows`,
  );

export const unsupportedMethod = (method: string) =>
  new PostgrestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);

export const invalidRpcMethod = (method: string) =>
  new PostgrestError(405, 'PGRST101', `Cannot use the ${method} method on RPC`);

export const relatedOrderNotToOne = (origin: string, target: string) =>
  new PostgrestError(
    400,
    'PGRST118',
    `A related order on '${target}' is not possible`,
    `'${origin}' and '${target}' do not form a many-to-one or one-to-one relationship`,
  );

export const gucHeadersError = () =>
  new PostgrestError(
    500,
    'PGRST111',
    'response.headers guc must be a JSON array composed of objects with a single key and a string value',
  );

export const gucStatusError = () =>
  new PostgrestError(500, 'PGRST112', 'response.status guc must be a valid status code');

export const invalidPreferences = (preferences: string[]) =>
  new PostgrestError(
    400,
    'PGRST122',
    'Invalid preferences given with handling=strict',
    `Invalid preferences: ${preferences.join(', ')}`,
  );

export const aggregatesNotAllowed = () =>
  new PostgrestError(400, 'PGRST123', 'Use of aggregate functions is not allowed');

export const notImplemented = (details: string) =>
  new PostgrestError(400, 'PGRST127', 'Feature not implemented', details);

export const maxAffectedExceeded = (rows: number) =>
  new PostgrestError(
    400,
    'PGRST124',
    'Query result exceeds max-affected preference constraint',
    `The query affects ${rows} rows`,
  );

export const maxAffectedOnSingleRpc = () =>
  new PostgrestError(
    400,
    'PGRST128',
    'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
  );

export const invalidResourcePath = () => new PostgrestError(404, 'PGRST125', 'Invalid path specified in request URL');

export const openApiDisabled = () => new PostgrestError(404, 'PGRST126', 'Root endpoint metadata is disabled');

// ---------------------------------------------------------------------------------------------
// Schema cache errors

export function unknownTable(snapshot: CatalogSnapshot, schema: string, name: string): PostgrestError {
  const names = [...snapshot.tables.values()].filter((table) => table.schema === schema).map((table) => table.name);
  const suggestion = bestFuzzyMatch(names, name, 0.75);
  return new PostgrestError(
    404,
    'PGRST205',
    `Could not find the table '${schema}.${name}' in the schema cache`,
    null,
    suggestion === undefined ? null : `Perhaps you meant the table '${schema}.${suggestion}'`,
  );
}

export const columnNotFound = (table: string, column: string) =>
  new PostgrestError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`);

export function unknownFunction(
  snapshot: CatalogSnapshot,
  schema: string,
  name: string,
  argumentNames: string[],
  body: 'json' | 'other' | 'get',
): PostgrestError {
  const fn = `${schema}.${name}`;
  const params = argumentNames.join(', ');
  const message = `Could not find the function ${fn}${argumentNames.length === 0 ? ' without parameters' : `(${params})`} in the schema cache`;
  const withParams =
    argumentNames.length === 0
      ? ' without parameters'
      : ` with parameter${argumentNames.length > 1 ? 's' : ''} ${params}`;
  const details = `Searched for the function ${fn}${withParams}${body === 'json' ? ' or with a single unnamed json/jsonb parameter' : ''}, but no matches were found in the schema cache.`;
  const overloads = snapshot.functions.get(`${schema}.${name}`) ?? [];
  let hint: string | undefined;
  if (overloads.length === 0) {
    const names = [...snapshot.functions.values()]
      .flat()
      .filter((f) => f.schema === schema)
      .map((f) => f.name);
    const best = bestFuzzyMatch(names, name, 0.75);
    if (best !== undefined) hint = `${best}`;
  } else {
    const asText = (list: string[]) => `(${[...list].sort().join(', ')})`;
    const best = bestFuzzyMatch(
      overloads.map((o) => asText(o.arguments.map((a) => a.name))),
      asText(argumentNames),
    );
    if (best !== undefined) hint = `${name}${best}`;
  }
  return new PostgrestError(
    404,
    'PGRST202',
    message,
    details,
    hint === undefined ? null : `Perhaps you meant to call the function ${schema}.${hint}`,
  );
}

export const ambiguousFunction = (
  candidates: { schema: string; name: string; arguments: { name: string; type: string }[] }[],
) =>
  new PostgrestError(
    300,
    'PGRST203',
    // In signature order, so the message does not depend on the order of the catalog's rows (OIDs
    // differ between a fresh PGlite and a reused PostgreSQL cluster).
    `Could not choose the best candidate function between: ${candidates
      .map((c) => `${c.schema}.${c.name}(${c.arguments.map((a) => `${a.name} => ${a.type}`).join(', ')})`)
      .sort()
      .join(', ')}`,
    null,
    'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
  );

export function noRelationship(
  snapshot: CatalogSnapshot,
  schema: string,
  parent: string,
  child: string,
  hint: string | undefined,
): PostgrestError {
  const details = `Searched for a foreign key relationship between '${parent}' and '${child}'${hint === undefined ? '' : ` using the hint '${hint}'`} in the schema '${schema}', but no matches were found.`;
  return new PostgrestError(
    400,
    'PGRST200',
    `Could not find a relationship between '${parent}' and '${child}' in the schema cache`,
    details,
    noRelationshipHint(snapshot, schema, parent, child),
  );
}

/**
 * PostgREST's suggestion: a close parent name when the parent has no relationships at all,
 * otherwise a close target among the parent's targets (never one that matches exactly).
 */
function noRelationshipHint(snapshot: CatalogSnapshot, schema: string, parent: string, child: string): string | null {
  const ofParent = snapshot.relationships.get(relationshipKey({ schema, name: parent }, schema));
  if (ofParent) {
    const suggestion = fuzzyMatches(
      ofParent.map((r) => r.foreignTable.name),
      child,
    ).find((match) => match.score < 1)?.value;
    return suggestion === undefined ? null : `Perhaps you meant '${suggestion}' instead of '${child}'.`;
  }
  const origins = [...snapshot.relationships.keys()]
    .map((key) => key.split('\0') as [string, string])
    .filter(([, targetSchema]) => targetSchema === schema)
    .map(([origin]) => origin.slice(origin.indexOf('.') + 1));
  const suggestion = bestFuzzyMatch(origins, parent);
  return suggestion === undefined ? null : `Perhaps you meant '${suggestion}' instead of '${parent}'.`;
}

function columnsText(columns: string[]): string {
  return `(${columns.join(', ')})`;
}

/** PostgREST's `details` entry for one candidate of an ambiguous embedding. */
export function describeRelationship(r: Relationship): Record<string, string> {
  if (r.kind === 'computed') return {};
  const embedding = `${r.table.name} with ${r.foreignTable.name}`;
  const c = r.cardinality;
  if (c.kind === 'm2m') {
    const j = c.junction;
    return {
      cardinality: 'many-to-many',
      embedding,
      relationship: `${j.table.name} using ${j.constraint1}${columnsText(j.sourceColumns.map(([, column]) => column))} and ${j.constraint2}${columnsText(j.targetColumns.map(([, column]) => column))}`,
    };
  }
  const names = { m2o: 'many-to-one', o2o: 'one-to-one', o2m: 'one-to-many' } as const;
  return {
    cardinality: names[c.kind],
    embedding,
    relationship: `${c.constraint} using ${r.table.name}${columnsText(c.columns.map(([column]) => column))} and ${r.foreignTable.name}${columnsText(c.columns.map(([, column]) => column))}`,
  };
}

function relationshipHint(r: Relationship): string {
  if (r.kind === 'computed') return '';
  const c = r.cardinality;
  return `'${r.foreignTable.name}!${c.kind === 'm2m' ? c.junction.table.name : c.constraint}'`;
}

export const ambiguousRelationship = (parent: string, child: string, candidates: Relationship[]) =>
  new PostgrestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${parent}' and '${child}'`,
    candidates.map(describeRelationship),
    `Try changing '${child}' to one of the following: ${candidates.map(relationshipHint).join(', ')}. Find the desired relationship in the 'details' key.`,
  );

// ---------------------------------------------------------------------------------------------
// Database errors

interface DatabaseError {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
  /** Where in the statement sent the error lies; set only for the top-level statement, never for one run inside a function. */
  position?: string;
}

/** An error the database answered with a SQLSTATE (not a Node socket error such as EPIPE, also five capitals). */
export function isDatabaseError(error: unknown): error is DatabaseError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as DatabaseError).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as DatabaseError).code ?? '') &&
    !('errno' in error) &&
    !('syscall' in error)
  );
}

/**
 * The connection to the database broke (PostgreSQL restarting or gone): a socket error, or pg's
 * own words for a connection that ended. Not the request's fault, and worth retrying.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  if (code !== undefined && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code))
    return true;
  return /Connection terminated|connection error|not queryable|Client was closed/i.test(message ?? '');
}

/** PostgREST's answer while it cannot reach the database (PGRST001, 503). */
export const connectionLost = (detail: string) =>
  new PostgrestError(503, 'PGRST001', 'Database client error. Retrying the connection.', detail, null);

/**
 * PostgREST's status for a SQLSTATE (Error.hs, pgErrorStatus), with one localbase decision: the
 * codes this project's functions raise in class P0 (P0001-P0999) are client errors, 400, where
 * PostgREST answers 500 for all but P0001. Callers should decide on `code`, which is the same on
 * both: a hosted project answers those codes with 500. A statement cut by the statement timeout
 * (57014) is 500, as on PostgREST.
 */
export function statusForSqlState(code: string, role: ApiRole, message = ''): number {
  // PostgREST reads a PTnnn code as the status nnn, and any other PT code as a server error.
  if (code.startsWith('PT')) {
    const custom = /^PT(\d{3})$/.exec(code);
    return custom ? Number(custom[1]) : 500;
  }
  switch (code) {
    case '23503':
    case '23505':
      return 409;
    case '25006':
      return 405;
    case '21000':
      return message.endsWith('requires a WHERE clause') ? 400 : 500;
    case '22023':
      return message.startsWith('role') && message.endsWith('does not exist') ? 401 : 400;
    case '53400':
      return 500;
    case '57P01':
      return 503;
    case '42883':
      return message.startsWith('function xmlagg(') ? 406 : 404;
    case '42P01':
      return 404;
    case '42P17':
      return 500;
    case '42501':
      return role === 'anon' ? 401 : 403;
  }
  const classOf = code.slice(0, 2);
  if (classOf === 'P0') return 400;
  if (classOf === '08' || classOf === '53') return 503;
  if (classOf === '0L' || classOf === '0P' || classOf === '28') return 403;
  if (['09', '25', '2D', '38', '39', '3B', '40', '54', '55', '57', '58', 'F0', 'HV', 'XX'].includes(classOf))
    return 500;
  return 400;
}

/** PostgreSQL's lexer and grammar errors: `<what> at or near "<the statement from there on>"`. */
const QUOTED_STATEMENT = / at or near "[\s\S]*$/;

/**
 * The statement a request runs is built by localbase, so a syntax error in it (`position` set:
 * the error lies in the statement sent, not in one a function ran) would quote localbase's SQL
 * from the error on: PostgreSQL's "at or near" text. The answer keeps the code and what went
 * wrong, never the quoted text. Errors raised inside the app's own functions carry
 * `internalPosition` instead and pass through unchanged, as do all other errors.
 */
function withoutGeneratedSql(error: DatabaseError): DatabaseError {
  if (error.position === undefined || !QUOTED_STATEMENT.test(error.message)) return error;
  return { code: error.code, message: error.message.replace(QUOTED_STATEMENT, '') };
}

export function fromDatabaseError(raw: DatabaseError, role: ApiRole): PostgrestError {
  const error = withoutGeneratedSql(raw);
  const code = error.code ?? 'XX000';
  return new PostgrestError(
    statusForSqlState(code, role, error.message),
    code,
    error.message,
    error.detail ?? null,
    error.hint ?? null,
  );
}

// The Data API's status for each SQLSTATE, row by row against PostgREST's documented table
// (references/errors.rst, "HTTP Status Codes", and mapSQLtoHTTP), plus the one deliberate
// difference: this project's own P0xxx codes are client errors (400), not 500.
import { describe, expect, it } from 'vitest';
import { fromDatabaseError, isConnectionLost, isDatabaseError, statusForSqlState } from './errors.ts';

const postgrestTable: [code: string, status: number, what: string][] = [
  ['08006', 503, 'connection failure'],
  ['08000', 503, 'connection exception'],
  ['09000', 500, 'triggered action exception'],
  ['0L000', 403, 'invalid grantor'],
  ['0P000', 403, 'invalid role specification'],
  ['23503', 409, 'foreign key violation'],
  ['23505', 409, 'unique violation'],
  ['23502', 400, 'not-null violation'],
  ['23514', 400, 'check violation'],
  ['23P01', 400, 'exclusion violation'],
  ['25006', 405, 'read-only transaction'],
  ['25P02', 500, 'transaction aborted'],
  ['28000', 403, 'invalid authorization specification'],
  ['2D000', 500, 'invalid transaction termination'],
  ['38000', 500, 'external routine exception'],
  ['39000', 500, 'external routine invocation'],
  ['3B000', 500, 'savepoint exception'],
  ['40001', 500, 'serialization failure'],
  ['40P01', 500, 'deadlock'],
  ['53400', 500, 'configuration limit exceeded'],
  ['53100', 503, 'disk full'],
  ['53200', 503, 'out of memory'],
  ['54001', 500, 'statement too complex'],
  ['55P03', 500, 'lock not available'],
  ['57014', 500, 'statement timeout'],
  ['57P01', 503, 'admin shutdown'],
  ['58030', 500, 'io error'],
  ['F0000', 500, 'config file error'],
  ['HV000', 500, 'foreign data wrapper error'],
  ['P0001', 400, 'raise exception'],
  ['XX000', 500, 'internal error'],
  ['XX001', 500, 'data corrupted'],
  ['42883', 404, 'undefined function'],
  ['42P01', 404, 'undefined table'],
  ['42P17', 500, 'infinite recursion'],
  ['22001', 400, 'string data right truncation'],
  ['22003', 400, 'numeric value out of range'],
  ['22P02', 400, 'invalid text representation'],
  ['22P05', 400, 'untranslatable character (a NUL in jsonb)'],
  ['22021', 400, 'invalid byte sequence'],
  ['42703', 400, 'undefined column'],
  ['42601', 400, 'syntax error'],
  ['PT418', 418, 'PostgREST custom status'],
  ['PT201', 201, 'PostgREST custom status'],
  ['PTabc', 500, 'PT code without a status'],
];

describe('statusForSqlState', () => {
  it.each(postgrestTable)('%s -> %i (%s), as PostgREST answers it', (code, status) => {
    expect(statusForSqlState(code, 'authenticated')).toBe(status);
  });

  it('answers insufficient privilege 401 to anon and 403 to a signed-in caller', () => {
    expect(statusForSqlState('42501', 'anon')).toBe(401);
    expect(statusForSqlState('42501', 'authenticated')).toBe(403);
    expect(statusForSqlState('42501', 'service_role')).toBe(403);
  });

  it('tells the special messages PostgREST tells apart', () => {
    expect(statusForSqlState('21000', 'authenticated', 'UPDATE requires a WHERE clause')).toBe(400);
    expect(
      statusForSqlState('21000', 'authenticated', 'more than one row returned by a subquery used as an expression'),
    ).toBe(500);
    expect(statusForSqlState('22023', 'authenticated', 'role "x" does not exist')).toBe(401);
    expect(statusForSqlState('22023', 'authenticated', 'invalid value for parameter')).toBe(400);
  });

  it.each(['P0002', 'P0004', 'P0011', 'P0063', 'P0999'])(
    "answers this project's own %s with 400 (PostgREST would say 500)",
    (code) => {
      expect(statusForSqlState(code, 'authenticated')).toBe(400);
    },
  );

  it("keeps the database error in PostgREST's body", () => {
    const error = fromDatabaseError(
      { code: 'P0011', message: 'handle_taken', hint: 'choose another handle' },
      'authenticated',
    );
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({
      code: 'P0011',
      details: null,
      hint: 'choose another handle',
      message: 'handle_taken',
    });
  });
});

describe('syntax errors in the statement localbase built', () => {
  const quoting =
    'unterminated dollar-quoted string at or near "$a$ ), "public"."groups"."name" FROM "public"."groups" ) SELECT null::bigint AS total"';

  it('never quote the statement: the code and what went wrong stay, the quoted text goes', () => {
    const error = fromDatabaseError({ code: '42601', message: quoting, position: '54' }, 'anon');
    expect(error.status).toBe(400);
    expect(error.body()).toEqual({
      code: '42601',
      details: null,
      hint: null,
      message: 'unterminated dollar-quoted string',
    });
    expect(
      fromDatabaseError({ code: '42601', message: 'syntax error at or near "text"', position: '40' }, 'anon').message,
    ).toBe('syntax error');
  });

  it("keep a syntax error raised inside the app's own function (no position in the statement sent) as it is", () => {
    const inFunction = {
      code: '42601',
      message: 'syntax error at or near "from"',
      internalPosition: '8',
      internalQuery: 'select from from',
    };
    expect(fromDatabaseError(inFunction, 'authenticated').message).toBe('syntax error at or near "from"');
  });

  it("keep other errors that point into the statement, whose messages name only the request's own words", () => {
    const error = fromDatabaseError(
      { code: '22P02', message: 'invalid input syntax for type integer: "abc"', position: '16' },
      'anon',
    );
    expect(error.message).toBe('invalid input syntax for type integer: "abc"');
    expect(
      fromDatabaseError({ code: '42601', message: 'syntax error at end of input', position: '90' }, 'anon').message,
    ).toBe('syntax error at end of input');
  });
});

describe('telling database errors from a lost connection', () => {
  it('does not take a socket error whose code looks like a SQLSTATE (EPIPE) for a database error', () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
    expect(isDatabaseError(epipe)).toBe(false);
    expect(isConnectionLost(epipe)).toBe(true);
  });

  it("knows pg's words for a connection that ended", () => {
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isConnectionLost({ code: '23505', message: 'duplicate key value violates unique constraint' })).toBe(false);
    expect(
      isDatabaseError({
        code: '57P01',
        message: 'terminating connection due to administrator command',
        severity: 'FATAL',
      }),
    ).toBe(true);
  });
});

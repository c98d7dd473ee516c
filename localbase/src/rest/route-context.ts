// What every /rest/v1 handler shares: reading the request (query, headers, schema profile, Prefer),
// running its one statement as the caller, and the checks and headers a read, a write and a call
// build the same way. The handlers are table-route.ts (with table-read.ts and table-write.ts) and
// rpc-route.ts; routes.ts mounts them.
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { resolveCaller } from '../caller.ts';
import type { ApiRole, TokenVerifier, VerifiedToken } from '../jwt.ts';
import { preparedQuery } from '../prepared-statements.ts';
import { httpRequestContext, type RequestContext } from '../request-context.ts';
import { runRequestStatement, withRequestTransaction } from '../request-transaction.ts';
import { planRowsOf, statementResult, type StatementResult } from './answers.ts';
import { qualifiedKey, type Catalog, type CatalogSnapshot } from './catalog.ts';
import {
  invalidPreferences,
  maxAffectedExceeded,
  PostgrestError,
  singleRowExpected,
  unacceptableSchema,
} from './errors.ts';
import { contentTypeOf, type PlanProduced, type Produced } from './negotiate.ts';
import { parsePrefer, type Preferences, type TxEnd } from './prefer.ts';
import { Params, type SqlContext } from './sql.ts';

export interface RestRoutesOptions {
  pool: pg.Pool;
  catalog: Catalog;
  verifier: TokenVerifier;
  /** Exposed schemas; the first is the default. */
  schemas: readonly string[];
  /** PostgREST's db-max-rows; undefined: no limit. */
  maxRows?: number | undefined;
  /** PostgREST's db-aggregates-enabled. */
  aggregates: boolean;
  /** PostgREST's db-plan-enabled. */
  plans: boolean;
  /** PostgREST's db-tx-end. */
  txEnd: TxEnd;
  /** PostgREST's db-pre-request: the function's SQL name, quoted (see preRequestSql); undefined: none. */
  preRequest?: string | undefined;
  /** PostgREST's db-hoisted-tx-settings: the settings of a called function applied to its transaction. */
  hoistedSettings: readonly string[];
  /** Called after a write committed (realtime looks for new changes). */
  onWrite: () => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called a REST route, once its token is verified: the error handler answers an anonymous caller 401 where a user gets 403. */
    restCallerRole: ApiRole | null;
  }
}

export const nameParams = z.object({ name: z.string().min(1) });

export function queryOf(request: FastifyRequest): URLSearchParams {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
}

export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface SchemaChoice {
  schema: string;
  /** Answer with Content-Profile (several schemas exposed, or one named). */
  negotiated: boolean;
}

/** Accept-Profile for reads, Content-Profile for writes; 406 PGRST106 for a schema not exposed. */
export function requestSchema(request: FastifyRequest, schemas: readonly string[]): SchemaChoice {
  const writes = ['POST', 'PATCH', 'PUT', 'DELETE'].includes(request.method);
  const profile = header(request, writes ? 'content-profile' : 'accept-profile');
  if (profile === undefined) return { schema: schemas[0] as string, negotiated: schemas.length !== 1 };
  if (!schemas.includes(profile)) throw unacceptableSchema(profile, schemas);
  return { schema: profile, negotiated: true };
}

/** Checks a statement's result inside its transaction: a throw rolls the request back. */
export type ResultCheck = (result: StatementResult) => void;

export interface RunSpec {
  sql: string;
  values: unknown[];
  /** EXPLAIN of the count query, for a planned or estimated count. */
  explain?: { sql: string; values: unknown[] } | undefined;
  timezone?: string | undefined;
  check?: ResultCheck | undefined;
  /** End the transaction in a rollback (db-tx-end, `Prefer: tx=rollback`), answering what it did. */
  rollback?: boolean | undefined;
  /** The function a call runs: its hoisted settings and isolation level shape the transaction. */
  call?: FunctionTransaction | undefined;
}

/** What a called function brings to its request's transaction (see functionTransaction). */
export type FunctionTransaction = Pick<RequestContext, 'settings' | 'isolation'> & { readOnly?: true };

export interface ExplainSpec {
  /** The statement the request would run; its plan is the answer. */
  sql: string;
  values: unknown[];
  plan: PlanProduced;
  timezone?: string | undefined;
  /** Undo what `analyze` did: always for a write, so that asking for a plan never changes data. */
  rollback: boolean;
  call?: FunctionTransaction | undefined;
}

/** The pieces bound to the routes' options, made once by restRoutes and handed to each handler. */
export interface RestContext {
  options: RestRoutesOptions;
  /** Verifies the caller's token (and remembers its role for the error handler). */
  caller(request: FastifyRequest): Promise<VerifiedToken>;
  /** The request's Prefer headers; the time zone names are read only when one names a time zone. */
  preferencesOf(request: FastifyRequest): Promise<Preferences>;
  /**
   * Runs the statement as the caller. The common case goes to the database in one pipelined round
   * trip; a time zone, an EXPLAIN, or a check that may have to undo a write keeps the transaction
   * open for them.
   */
  run(
    request: FastifyRequest,
    verified: VerifiedToken,
    spec: RunSpec,
  ): Promise<{ result: StatementResult; planRows: number | undefined }>;
  /** Runs EXPLAIN of the statement as the caller, in the same kind of transaction, and returns its text. */
  explain(request: FastifyRequest, verified: VerifiedToken, spec: ExplainSpec): Promise<string>;
}

/** Undoing a request's work inside its transaction, as PostgREST's rollback: deferred constraints are checked first. */
const ROLLBACK_POINT = 'localbase_tx_end';

async function undoable<T>(client: pg.PoolClient, rollback: boolean, work: () => Promise<T>): Promise<T> {
  if (!rollback) return work();
  await client.query(`savepoint ${ROLLBACK_POINT}`);
  const result = await work();
  await client.query('set constraints all immediate');
  await client.query(`rollback to savepoint ${ROLLBACK_POINT}`);
  return result;
}

/** EXPLAIN's text as it comes from the server: one row for FORMAT JSON, one per line for FORMAT TEXT, each ended by a newline. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

export function explainSql(plan: PlanProduced, sql: string, values: unknown[]): string {
  const options = [`FORMAT ${plan.format.toUpperCase()}`, ...plan.options.map((option) => option.toUpperCase())];
  return `EXPLAIN (${options.join(', ')}) ${inlineParameters(sql, values)}`;
}

/** A value as an SQL string literal: of type unknown, as an untyped parameter is, so it is read the same way. */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = String(value);
  if (text.includes('\0')) throw new PostgrestError(400, '22021', 'invalid byte sequence for encoding "UTF8": 0x00');
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * The statement with each `$n` replaced by its value as a literal. EXPLAIN of a statement with bind
 * parameters stalls PGlite's session, so a plan is asked for in the simple protocol, with the
 * values written in. Quoted identifiers and string literals of the statement are copied as they
 * are (a `$1` inside one is not a parameter); the transaction runs with standard_conforming_strings
 * on, so a backslash in a value is only a backslash.
 */
export function inlineParameters(sql: string, values: unknown[]): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    if (char === "'" || char === '"') {
      let end = index + 1;
      while (end < sql.length) {
        if (sql[end] === char) {
          if (sql[end + 1] !== char) break;
          end += 1;
        }
        end += 1;
      }
      out += sql.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    if (char === '$' && /\d/.test(sql[index + 1] ?? '') && !/[\w$]/.test(sql[index - 1] ?? '')) {
      let end = index + 1;
      while (/\d/.test(sql[end] ?? '')) end += 1;
      out += literalOf(values[Number(sql.slice(index + 1, end)) - 1]);
      index = end;
      continue;
    }
    out += char;
    index += 1;
  }
  return out;
}

export function restContext(options: RestRoutesOptions): RestContext {
  const { pool, catalog } = options;
  /** The request's transaction as the caller, with the pre-request function and a called function's settings. */
  const contextOf = (request: FastifyRequest, verified: VerifiedToken, call: FunctionTransaction | undefined) => ({
    ...httpRequestContext(request, verified),
    preRequest: options.preRequest,
    ...call,
  });
  return {
    options,
    async caller(request) {
      const verified = await resolveCaller(request.headers, options.verifier);
      request.restCallerRole = verified.role;
      return verified;
    },
    async preferencesOf(request) {
      const header = request.headers.prefer;
      const namesTimezone = (Array.isArray(header) ? header : [header ?? '']).some((value) =>
        value.includes('timezone='),
      );
      return parsePrefer(header, namesTimezone ? await catalog.timezones() : new Set(), options.txEnd);
    },
    async run(request, verified, spec) {
      const context = contextOf(request, verified, spec.call);
      let planRows: number | undefined;
      let result: StatementResult;
      const rollback = spec.rollback === true;
      if (
        spec.explain === undefined &&
        spec.timezone === undefined &&
        !rollback &&
        (spec.check === undefined || context.readOnly)
      ) {
        result = statementResult(await runRequestStatement(pool, context, spec.sql, spec.values));
        spec.check?.(result);
      } else {
        result = await withRequestTransaction(pool, context, async (client) => {
          if (spec.timezone !== undefined)
            await client.query(`select set_config('timezone', $1, true)`, [spec.timezone]);
          return undoable(client, rollback && !context.readOnly, async () => {
            const answered = statementResult(await client.query(preparedQuery(client, spec.sql, spec.values)));
            spec.check?.(answered);
            if (spec.explain) planRows = planRowsOf(await client.query(spec.explain.sql, spec.explain.values));
            return answered;
          });
        });
      }
      if (!context.readOnly && !rollback) options.onWrite();
      return { result, planRows };
    },
    async explain(request, verified, spec) {
      // The caller's role, claims and statement timeout, as for the statement itself: the plan
      // (and what `analyze` runs) sees only what row-level security lets the caller see.
      const context = contextOf(request, verified, spec.call);
      return withRequestTransaction(pool, context, async (client) => {
        if (spec.timezone !== undefined) await client.query(`select set_config('timezone', $1, true)`, [spec.timezone]);
        await client.query('set local standard_conforming_strings = on');
        return undoable(client, spec.rollback && !context.readOnly, async () => {
          const explained = await client.query({ text: explainSql(spec.plan, spec.sql, spec.values), types: RAW_TEXT });
          return explained.rows.map((row: Record<string, string>) => `${row['QUERY PLAN'] ?? ''}\n`).join('');
        });
      });
    },
  };
}

export function sqlContext(snapshot: CatalogSnapshot): SqlContext {
  return {
    params: new Params(),
    column: (relation, column) =>
      snapshot.tables.get(qualifiedKey(relation.schema, relation.name))?.columns.get(column),
  };
}

export function strictPreferences(prefs: Preferences): void {
  if (prefs.handling === 'strict' && prefs.invalid.length > 0) throw invalidPreferences(prefs.invalid);
}

/** `Prefer: handling=strict, max-affected=n`: the most rows a write or a call may touch; else undefined. */
export function strictMaxAffected(prefs: Preferences): number | undefined {
  return prefs.handling === 'strict' && prefs.maxAffected !== undefined ? prefs.maxAffected : undefined;
}

/** Fails a statement that touched more rows than `max-affected` allows (strict handling only). */
export function maxAffectedCheck(prefs: Preferences): ResultCheck | undefined {
  const max = strictMaxAffected(prefs);
  return max === undefined
    ? undefined
    : (result) => {
        if (result.returned > max) throw maxAffectedExceeded(result.returned);
      };
}

/** Accept: a single object: any other number of rows fails the request, whatever it returns. */
export function singleCheck(produced: Produced): ResultCheck | undefined {
  return produced.kind === 'single'
    ? (result) => {
        if (result.returned !== 1) throw singleRowExpected(result.returned);
      }
    : undefined;
}

/** The checks that apply, run in order, or undefined when none does (the statement may then run without a held transaction). */
export function allChecks(...checks: (ResultCheck | undefined)[]): ResultCheck | undefined {
  const present = checks.filter((check): check is ResultCheck => check !== undefined);
  return present.length === 0 ? undefined : (result) => present.forEach((check) => check(result));
}

export function bodyHeaders(produced: Produced, choice: SchemaChoice): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': contentTypeOf(produced) };
  if (choice.negotiated) headers['content-profile'] = choice.schema;
  return headers;
}

/** The answer to a request for a query plan: 200, the plan's media type, the plan; nothing else. */
export function planAnswer(plan: PlanProduced, choice: SchemaChoice, text: string) {
  const headers: Record<string, string> = { 'content-type': contentTypeOf(plan) };
  if (choice.negotiated) headers['content-profile'] = choice.schema;
  return { status: 200, headers, body: text };
}

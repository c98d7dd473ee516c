// /rest/v1: tables, views and functions of the exposed schemas, speaking PostgREST's dialect.
// Each request is one transaction under the caller's role (request-transaction.ts) and, for reads,
// writes and calls alike, one SQL statement: embedded resources are joined inside it, so RLS
// applies to every table it touches as the caller. A planned count adds an EXPLAIN of the count
// query in the same transaction, as PostgREST does.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { MissingApiKeyError, resolveCaller } from '../caller.ts';
import { InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from '../json-body.ts';
import { JwtError, type ApiRole, type TokenVerifier, type VerifiedToken } from '../jwt.ts';
import { preparedQuery } from '../prepared-statements.ts';
import { ConnectionBusyError, httpRequestContext, runRequestStatement, SessionEndedError, withRequestTransaction } from '../request-transaction.ts';
import { applyGucs, planRowsOf, send, statementResult, withOptional, type StatementResult } from './answers.ts';
import { callArguments, columnsForCall, findFunction } from './calls.ts';
import { qualifiedKey, type Catalog, type CatalogSnapshot, type Table } from './catalog.ts';
import {
  badRequest,
  connectionLost,
  fromDatabaseError,
  invalidPreferences,
  invalidRange,
  invalidResourcePath,
  invalidRpcMethod,
  isConnectionLost,
  isDatabaseError,
  maxAffectedExceeded,
  maxAffectedOnSingleRpc,
  openApiDisabled,
  PostgrestError,
  putPrimaryKeyMismatch,
  singleRowExpected,
  unacceptableSchema,
  unknownFunction,
  unknownTable,
} from './errors.ts';
import { allowedMethods, encodeLocationPair, planMutation, tableAction, type Mutation, type TableAction } from './mutations.ts';
import { contentTypeOf, handlerFor, negotiate, type Produced } from './negotiate.ts';
import { parseQueryParams, type RangeParam } from './parse.ts';
import { installRestBodyParsers, mediaKind, rpcPayload, tablePayload, type RpcPayload } from './payload.ts';
import { buildReadPlan, type ReadNode } from './plan.ts';
import { parsePrefer, preferenceApplied, type PreferenceApplication, type Preferences } from './prefer.ts';
import { contentRange, rangeStatus, topLevelRange } from './ranges.ts';
import {
  callSourceSql,
  callStatement,
  countQuery,
  Params,
  readStatement,
  writeStatement,
  type BodyHandler,
  type RowShape,
  type SqlContext,
} from './sql.ts';

export interface RestRoutesOptions {
  pool: pg.Pool;
  catalog: Catalog;
  verifier: TokenVerifier;
  /** Exposed schemas; the first is the default. */
  schemas: readonly string[];
  /** PostgREST's db-max-rows; undefined: no limit. */
  maxRows?: number | undefined;
  /** Called after a write committed (realtime looks for new changes). */
  onWrite: () => void;
}

const nameParams = z.object({ name: z.string().min(1) });

function queryOf(request: FastifyRequest): URLSearchParams {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

// -------------------------------------------------------------------------------------------------
// Schemas

interface SchemaChoice {
  schema: string;
  /** Answer with Content-Profile (several schemas exposed, or one named). */
  negotiated: boolean;
}

/** Accept-Profile for reads, Content-Profile for writes; 406 PGRST106 for a schema not exposed. */
function requestSchema(request: FastifyRequest, schemas: readonly string[]): SchemaChoice {
  const writes = ['POST', 'PATCH', 'PUT', 'DELETE'].includes(request.method);
  const profile = header(request, writes ? 'content-profile' : 'accept-profile');
  if (profile === undefined) return { schema: schemas[0] as string, negotiated: schemas.length !== 1 };
  if (!schemas.includes(profile)) throw unacceptableSchema(profile, schemas);
  return { schema: profile, negotiated: true };
}

// -------------------------------------------------------------------------------------------------

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called a REST route, once its token is verified: the error handler answers an anonymous caller 401 where a user gets 403. */
    restCallerRole: ApiRole | null;
  }
}

export async function restRoutes(app: FastifyInstance, options: RestRoutesOptions): Promise<void> {
  const { pool, catalog } = options;
  installRestBodyParsers(app);
  app.decorateRequest('restCallerRole', null);

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toPostgrestError(error, request.restCallerRole ?? 'anon');
    if (failure.status >= 500) request.log.error({ err: error }, 'rest request failed');
    if (failure.status === 401) {
      reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${failure.message.replace(/"/g, "'")}"`);
    }
    return reply
      .status(failure.status)
      .header('content-type', 'application/json; charset=utf-8')
      .header('proxy-status', `PostgREST; error=${failure.code}`)
      .send(failure.body());
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).header('content-type', 'application/json; charset=utf-8').send(invalidResourcePath().body()));

  async function caller(request: FastifyRequest): Promise<VerifiedToken> {
    const verified = await resolveCaller(request.headers, options.verifier);
    request.restCallerRole = verified.role;
    return verified;
  }

  interface RunSpec {
    sql: string;
    values: unknown[];
    /** EXPLAIN of the count query, for a planned or estimated count. */
    explain?: { sql: string; values: unknown[] } | undefined;
    timezone?: string | undefined;
    /** Checks the result inside the transaction: a throw rolls the request back. */
    check?: ((result: StatementResult) => void) | undefined;
  }

  /**
   * Runs the statement as the caller. The common case goes to the database in one pipelined round
   * trip; a time zone, an EXPLAIN, or a check that may have to undo a write keeps the transaction
   * open for them.
   */
  async function run(request: FastifyRequest, verified: VerifiedToken, spec: RunSpec): Promise<{ result: StatementResult; planRows: number | undefined }> {
    const context = httpRequestContext(request, verified);
    let planRows: number | undefined;
    let result: StatementResult;
    if (spec.explain === undefined && spec.timezone === undefined && (spec.check === undefined || context.readOnly)) {
      result = statementResult(await runRequestStatement(pool, context, spec.sql, spec.values));
      spec.check?.(result);
    } else {
      result = await withRequestTransaction(pool, context, async (client) => {
        if (spec.timezone !== undefined) await client.query(`select set_config('timezone', $1, true)`, [spec.timezone]);
        const answered = statementResult(await client.query(preparedQuery(client, spec.sql, spec.values)));
        spec.check?.(answered);
        if (spec.explain) planRows = planRowsOf(await client.query(spec.explain.sql, spec.explain.values));
        return answered;
      });
    }
    if (!context.readOnly) options.onWrite();
    return { result, planRows };
  }

  function sqlContext(snapshot: CatalogSnapshot): SqlContext {
    return {
      params: new Params(),
      column: (relation, column) => snapshot.tables.get(qualifiedKey(relation.schema, relation.name))?.columns.get(column),
    };
  }

  /** The request's Prefer headers; the time zone names are read only when one names a time zone. */
  async function preferencesOf(request: FastifyRequest): Promise<Preferences> {
    const header = request.headers.prefer;
    const namesTimezone = (Array.isArray(header) ? header : [header ?? '']).some((value) => value.includes('timezone='));
    return parsePrefer(header, namesTimezone ? await catalog.timezones() : new Set());
  }

  function strictPreferences(prefs: Preferences): void {
    if (prefs.handling === 'strict' && prefs.invalid.length > 0) throw invalidPreferences(prefs.invalid);
  }

  /** Counting for reads: the count query, or EXPLAIN of it (planned), or both (estimated). */
  function countParts(ctx: SqlContext, node: ReadNode, prefs: Preferences): { inStatement: string | undefined; explain: RunSpec['explain'] } {
    if (!prefs.count) return { inStatement: undefined, explain: undefined };
    const explain = () => {
      const explainCtx: SqlContext = { ...ctx, params: new Params() };
      return { sql: `EXPLAIN (FORMAT JSON) ${countQuery(explainCtx, node)}`, values: explainCtx.params.values };
    };
    if (prefs.count === 'exact') return { inStatement: countQuery(ctx, node), explain: undefined };
    if (prefs.count === 'planned') return { inStatement: undefined, explain: explain() };
    const limited = options.maxRows === undefined ? countQuery(ctx, node) : `${countQuery(ctx, node)} LIMIT ${options.maxRows + 1}`;
    return { inStatement: limited, explain: explain() };
  }

  function countedTotal(prefs: Preferences, result: StatementResult, planRows: number | undefined): number | undefined {
    if (prefs.count === 'planned') return planRows;
    if (prefs.count === 'estimated' && (options.maxRows === undefined || (result.total ?? 0) > options.maxRows)) {
      return Math.max(result.total ?? 0, planRows ?? 0);
    }
    return result.total;
  }

  function bodyHeaders(produced: Produced, choice: SchemaChoice): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': contentTypeOf(produced) };
    if (choice.negotiated) headers['content-profile'] = choice.schema;
    return headers;
  }

  function singleCheck(produced: Produced): RunSpec['check'] {
    return produced.kind === 'single' ? (result) => {
      if (result.returned !== 1) throw singleRowExpected(result.returned);
    } : undefined;
  }

  // ----------------------------------------------------------------------------------------------
  // Tables and views

  async function tableRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const method = request.method;
    const choice = requestSchema(request, options.schemas);
    const kind = tableAction(method);
    const params = parseQueryParams(queryOf(request));
    const topRange = topLevelRange(method, params, header(request, 'range'));
    const payload = kind === 'insert' || kind === 'upsert' || kind === 'update'
      ? tablePayload(request.body, header(request, 'content-type'), params.columns)
      : undefined;
    const { snapshot, found: table } = await catalog.resolve((s) => s.tables.get(qualifiedKey(choice.schema, name)));
    if (!table) throw unknownTable(snapshot, choice.schema, name);
    if (kind === 'options') return send(reply, { status: 200, headers: { allow: allowedMethods(table), 'access-control-allow-origin': '*' }, body: undefined });
    const prefs = await preferencesOf(request);
    const relation = { schema: table.schema, name: table.name };
    const plan = buildReadPlan({ snapshot, schema: choice.schema, relation, params, action: kind === 'read' || kind === 'head' ? 'read' : 'mutate', topRange, maxRows: options.maxRows });
    if (kind === 'read' || kind === 'head') {
      const produced = negotiate(header(request, 'accept'));
      strictPreferences(prefs);
      return tableRead(request, reply, verified, { snapshot, choice, plan, prefs, produced, headOnly: kind === 'head', topRange });
    }
    const mutation = planMutation(table, kind, params, prefs, plan, payload);
    strictPreferences(prefs);
    const produced = negotiate(header(request, 'accept'));
    return tableWrite(request, reply, verified, { snapshot, choice, table, kind, plan, prefs, produced, mutation });
  }

  interface ReadRequest {
    snapshot: CatalogSnapshot;
    choice: SchemaChoice;
    plan: ReadNode;
    prefs: Preferences;
    produced: Produced;
    headOnly: boolean;
    topRange: RangeParam;
  }

  async function tableRead(request: FastifyRequest, reply: FastifyReply, verified: VerifiedToken, read: ReadRequest): Promise<FastifyReply> {
    const ctx = sqlContext(read.snapshot);
    const counting = countParts(ctx, read.plan, read.prefs);
    const handler: BodyHandler = read.headOnly ? { kind: 'none' } : handlerFor(read.produced);
    const sql = readStatement(ctx, read.plan, handler, counting.inStatement);
    const { result, planRows } = await run(request, verified, {
      sql,
      values: ctx.params.values,
      explain: counting.explain,
      timezone: read.prefs.timezone,
      check: singleCheck(read.produced),
    });
    const total = countedTotal(read.prefs, result, planRows);
    const lower = read.topRange.offset;
    const status = rangeStatus(lower, result.returned, total);
    const headers = withOptional(
      { 'content-range': contentRange(lower, result.returned, total), ...bodyHeaders(read.produced, read.choice) },
      'preference-applied',
      preferenceApplied(read.prefs, 'read'),
    );
    let body: string | undefined = read.headOnly ? undefined : result.body;
    if (status === 416) {
      headers['content-type'] = 'application/json; charset=utf-8';
      body = JSON.stringify(invalidRange(`An offset of ${lower} was requested, but there are only ${total ?? 0} rows.`).body());
    }
    return send(reply, applyGucs({ status, headers, body }, result));
  }

  interface WriteRequest {
    snapshot: CatalogSnapshot;
    choice: SchemaChoice;
    table: Table;
    kind: TableAction;
    plan: ReadNode;
    prefs: Preferences;
    produced: Produced;
    mutation: Mutation;
  }

  async function tableWrite(request: FastifyRequest, reply: FastifyReply, verified: VerifiedToken, write: WriteRequest): Promise<FastifyReply> {
    const { prefs, kind } = write;
    const ctx = sqlContext(write.snapshot);
    const full = prefs.representation === 'full';
    const handler: BodyHandler = full ? handlerFor(write.produced) : { kind: 'none' };
    const statement = writeStatement(ctx, write.mutation.build(ctx), write.plan, handler, {
      countInserted: kind === 'upsert' || (kind === 'insert' && prefs.resolution === 'merge-duplicates'),
      locationColumns: kind === 'insert' && prefs.representation === 'headers-only' ? write.table.primaryKey : undefined,
    });
    const strictMax = prefs.handling === 'strict' && prefs.maxAffected !== undefined ? prefs.maxAffected : undefined;
    const checks: ((result: StatementResult) => void)[] = [];
    if (kind === 'upsert') checks.push((result) => {
      if (result.returned !== 1) throw putPrimaryKeyMismatch();
    });
    else {
      // As PostgREST: asking for one object makes a write of any other number of rows fail,
      // whatever it returns.
      const single = singleCheck(write.produced);
      if (single) checks.push(single);
    }
    if ((kind === 'update' || kind === 'delete') && strictMax !== undefined) checks.push((result) => {
      if (result.returned > strictMax) throw maxAffectedExceeded(result.returned);
    });
    const { result } = await run(request, verified, {
      sql: statement,
      values: ctx.params.values,
      timezone: prefs.timezone,
      check: checks.length === 0 ? undefined : (answered) => checks.forEach((check) => check(answered)),
    });
    const counted = prefs.count === 'exact' || prefs.count === 'estimated' ? result.returned : undefined;
    const applied = preferenceApplied(prefs, kind as PreferenceApplication, kind !== 'insert' || write.table.primaryKey.length > 0 || queryOf(request).has('on_conflict'));
    const headers: Record<string, string> = {};
    let status: number;
    if (kind === 'insert') {
      if (result.location.length > 0) headers.location = `/${write.table.name}?${result.location.map((pair) => encodeLocationPair(pair)).join('&')}`;
      headers['content-range'] = contentRange(1, 0, counted);
      status = prefs.resolution === 'merge-duplicates' && (result.inserted ?? 0) <= 0 ? 200 : 201;
    } else if (kind === 'upsert') {
      status = full ? ((result.inserted ?? 0) > 0 ? 201 : 200) : 204;
    } else if (kind === 'update') {
      headers['content-range'] = contentRange(0, result.returned, counted);
      status = full ? 200 : 204;
    } else {
      headers['content-range'] = contentRange(1, 0, counted);
      status = full ? 200 : 204;
    }
    withOptional(headers, 'preference-applied', applied);
    if (full) Object.assign(headers, bodyHeaders(write.produced, write.choice));
    return send(reply, applyGucs({ status, headers, body: full ? result.body : undefined }, result));
  }

  // ----------------------------------------------------------------------------------------------
  // Functions

  async function rpcRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const method = request.method;
    const choice = requestSchema(request, options.schemas);
    if (!['GET', 'HEAD', 'POST', 'OPTIONS'].includes(method)) throw invalidRpcMethod(method);
    const readCall = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    const params = parseQueryParams(queryOf(request), { rpcRead: readCall });
    const topRange = topLevelRange(method, params, header(request, 'range'));
    const contentType = header(request, 'content-type');
    const payload: RpcPayload | undefined = readCall ? undefined : rpcPayload(request.body, contentType);
    const argumentNames = readCall
      ? [...new Set(params.rpcArguments.map(([key]) => key))]
      : payload?.kind === 'json' ? payload.keys : payload?.kind === 'form' ? [...payload.values.keys()] : [];
    const { snapshot, found: overloads } = await catalog.resolve((s) => s.functions.get(qualifiedKey(choice.schema, name)));
    const media = readCall ? 'json' : mediaKind(contentType);
    const fn = findFunction(overloads ?? [], argumentNames, media, !readCall, payload);
    if (fn === undefined) {
      throw unknownFunction(snapshot, choice.schema, name, [...argumentNames].sort(), readCall ? 'get' : media === 'json' ? 'json' : 'other');
    }
    if (method === 'OPTIONS') {
      return send(reply, { status: 200, headers: { allow: fn.volatility === 'volatile' ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST', 'access-control-allow-origin': '*' }, body: undefined });
    }
    const prefs = await preferencesOf(request);
    const composite = fn.returns === 'composite' || fn.returns === 'setof-composite';
    const relation = { schema: fn.schema, name: fn.returnTypeName ?? (composite ? 'record' : fn.name) };
    const plan = buildReadPlan({ snapshot, schema: choice.schema, relation, params, action: 'call', topRange, maxRows: options.maxRows });
    const produced = negotiate(header(request, 'accept'));
    strictPreferences(prefs);
    const single = fn.returns === 'void' || fn.returns === 'scalar' || fn.returns === 'composite';
    const strictMax = prefs.handling === 'strict' && prefs.maxAffected !== undefined ? prefs.maxAffected : undefined;
    if (strictMax !== undefined && single) throw maxAffectedOnSingleRpc();

    const ctx = sqlContext(snapshot);
    const args = callArguments(fn, readCall ? params.rpcArguments : undefined, payload);
    const shape: RowShape = fn.returns === 'setof-composite' ? 'rows' : fn.returns === 'setof-scalar' ? 'setof-scalar' : fn.returns === 'composite' ? 'single-row' : 'scalar';
    const source = callSourceSql(ctx.params, fn, args, columnsForCall(plan, params));
    const count = prefs.count === 'exact' || prefs.count === 'estimated' ? countQuery(ctx, plan) : undefined;
    const handler: BodyHandler = method === 'HEAD' ? { kind: 'none' } : handlerFor(produced);
    const sql = callStatement(ctx, source, plan, handler, shape, count);
    const checks: ((result: StatementResult) => void)[] = [];
    const singleObject = singleCheck(produced);
    if (singleObject) checks.push(singleObject);
    if (strictMax !== undefined) checks.push((result) => {
      if (result.returned > strictMax) throw maxAffectedExceeded(result.returned);
    });
    const { result } = await run(request, verified, {
      sql,
      values: ctx.params.values,
      timezone: prefs.timezone,
      check: checks.length === 0 ? undefined : (answered) => checks.forEach((check) => check(answered)),
    });
    const lower = topRange.offset;
    const total = result.total;
    const headers: Record<string, string> = { 'content-range': contentRange(lower, result.returned, total) };
    withOptional(headers, 'preference-applied', preferenceApplied(prefs, 'call'));
    if (fn.returns === 'void') return send(reply, applyGucs({ status: 204, headers, body: undefined }, result));
    const status = rangeStatus(lower, result.returned, total);
    let body: string | undefined = method === 'HEAD' ? undefined : result.body;
    Object.assign(headers, bodyHeaders(produced, choice));
    if (status === 416) {
      headers['content-type'] = 'application/json; charset=utf-8';
      body = JSON.stringify(invalidRange(`An offset of ${lower} was requested, but there are only ${total ?? 0} rows.`).body());
    }
    return send(reply, applyGucs({ status, headers, body }, result));
  }

  app.all('/:name', tableRequest);
  app.all('/rpc/:name', rpcRequest);
  app.all('/', async (request) => {
    await caller(request);
    requestSchema(request, options.schemas);
    throw openApiDisabled();
  });
}

function toPostgrestError(error: Error & { code?: string; statusCode?: number }, role: ApiRole): PostgrestError {
  if (error instanceof PostgrestError) return error;
  if (error instanceof JwtError) {
    const code = error.reason === 'invalid' ? 'PGRST301' : 'PGRST303';
    return new PostgrestError(401, code, error.message);
  }
  if (error instanceof MissingApiKeyError) {
    return new PostgrestError(401, 'PGRST301', error.message, null, 'No `apikey` request header or url param was found.');
  }
  if (error instanceof SessionEndedError) return new PostgrestError(401, 'PGRST303', `JWT rejected: ${error.message}`);
  if (error instanceof InvalidJsonError) return new PostgrestError(400, 'PGRST102', 'Empty or invalid json', error.message);
  if (error instanceof ConnectionBusyError) {
    return new PostgrestError(504, 'PGRST003', 'Timed out acquiring connection from connection pool.', error.message);
  }
  if (isBodyTooLarge(error)) {
    return new PostgrestError(413, 'PT413', `Request body is larger than the ${JSON_BODY_LIMIT_BYTES} byte limit of localbase`);
  }
  if (error instanceof z.ZodError) return badRequest('invalid request', error.issues[0]?.message ?? null);
  const fastifyStatus = error.statusCode;
  if (isConnectionLost(error)) return connectionLost(error.message);
  if (isDatabaseError(error)) return fromDatabaseError(error, role);
  if (fastifyStatus && fastifyStatus < 500) return new PostgrestError(fastifyStatus, 'PGRST000', String(error));
  return new PostgrestError(500, 'PGRST000', 'localbase failed to answer the request');
}


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
import { ConnectionBusyError, httpRequestContext, runRequestStatement, SessionEndedError, withRequestTransaction } from '../request-transaction.ts';
import { qualifiedKey, type Catalog, type CatalogSnapshot, type RpcFunction, type Table } from './catalog.ts';
import {
  ambiguousFunction,
  badRequest,
  columnNotFound,
  fromDatabaseError,
  gucHeadersError,
  gucStatusError,
  invalidPreferences,
  invalidPutFilters,
  invalidRange,
  invalidResourcePath,
  invalidRpcMethod,
  isDatabaseError,
  maxAffectedExceeded,
  maxAffectedOnSingleRpc,
  openApiDisabled,
  PostgrestError,
  putLimitNotAllowed,
  putPrimaryKeyMismatch,
  singleRowExpected,
  unacceptableSchema,
  unknownFunction,
  unknownTable,
  unsupportedMethod,
} from './errors.ts';
import { contentTypeOf, handlerFor, negotiate, type Produced } from './negotiate.ts';
import { parseQueryParams, type LogicTree, type QueryParams, type RangeParam } from './parse.ts';
import { installRestBodyParsers, mediaKind, rpcPayload, tablePayload, type RpcPayload } from './payload.ts';
import { buildReadPlan, resolveLogic, type ReadNode } from './plan.ts';
import { parsePrefer, preferenceApplied, type PreferenceApplication, type Preferences } from './prefer.ts';
import {
  bodyRowsSql,
  callSourceSql,
  callStatement,
  conditionsSql,
  countQuery,
  deleteSql,
  insertSql,
  Params,
  readStatement,
  updateSql,
  writeStatement,
  type BodyHandler,
  type CallArguments,
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

/** What one statement answered (see sql.ts: readStatement, writeStatement, callStatement). */
const resultRow = z.object({
  total: z.union([z.string(), z.number()]).nullable(),
  returned: z.union([z.string(), z.number()]).nullable(),
  body: z.string().nullable(),
  response_headers: z.string().nullable(),
  response_status: z.string().nullable(),
  inserted: z.number().nullable(),
  location: z.array(z.string()).nullable(),
});

interface StatementResult {
  total: number | undefined;
  returned: number;
  body: string;
  gucHeaders: string | undefined;
  gucStatus: string | undefined;
  inserted: number | undefined;
  location: string[];
}

function statementResult(result: pg.QueryResult): StatementResult {
  const row = resultRow.parse(result.rows[0]);
  return {
    total: row.total === null ? undefined : Number(row.total),
    returned: Number(row.returned ?? 0),
    body: row.body ?? '',
    gucHeaders: row.response_headers ?? undefined,
    gucStatus: row.response_status ?? undefined,
    inserted: row.inserted ?? undefined,
    location: row.location ?? [],
  };
}

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
// Schemas, ranges

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

/**
 * The top-level range: `limit`/`offset` intersected with a `Range: a-b` header (GET only);
 * `limit=0` is allowed, any other empty range is 416 PGRST103.
 */
function topLevelRange(method: string, params: QueryParams, rangeHeader: string | undefined): RangeParam {
  const query = params.ranges.get('') ?? { offset: 0, limit: undefined };
  const fromHeader = method === 'GET' ? parseRangeHeader(rangeHeader) : undefined;
  if (method === 'PUT' && (query.limit !== undefined || query.offset !== 0)) throw putLimitNotAllowed();
  if (query.limit === 0) return { offset: query.offset, limit: 0 };
  let lower = query.offset;
  let upper = query.limit === undefined ? Infinity : query.offset + query.limit - 1;
  if (fromHeader) {
    lower = Math.max(lower, fromHeader.lower);
    upper = Math.min(upper, fromHeader.upper);
  }
  if (upper < lower) {
    throw invalidRange(fromHeader && fromHeader.upper < fromHeader.lower
      ? 'The lower boundary must be lower than or equal to the upper boundary in the Range header.'
      : 'Limit should be greater than or equal to zero.');
  }
  return { offset: lower, limit: upper === Infinity ? undefined : upper - lower + 1 };
}

function parseRangeHeader(value: string | undefined): { lower: number; upper: number } | undefined {
  const match = value === undefined ? null : /^(\d+)-(\d*)$/.exec(value);
  if (!match) return undefined;
  return { lower: Number(match[1]), upper: match[2] === '' ? Infinity : Number(match[2]) };
}

function contentRange(lower: number, returned: number, total: number | undefined): string {
  const upper = lower + returned - 1;
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : '*';
  return `${range}/${total === undefined ? '*' : total}`;
}

function rangeStatus(lower: number, returned: number, total: number | undefined): number {
  if (total === undefined) return 200;
  if (lower > total) return 416;
  if (returned < total) return 206;
  return 200;
}

// -------------------------------------------------------------------------------------------------
// Responses

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Headers and status a function or trigger set through response.headers / response.status. */
function applyGucs(answer: Answer, result: StatementResult): Answer {
  let status = answer.status;
  const headers = { ...answer.headers };
  if (result.gucStatus !== undefined) {
    const code = Number(result.gucStatus);
    if (!/^\d+$/.test(result.gucStatus) || code < 100 || code > 599) throw gucStatusError();
    status = code;
  }
  if (result.gucHeaders !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.gucHeaders);
    } catch {
      throw gucHeadersError();
    }
    const list = z.array(z.record(z.string(), z.string()).refine((entry) => Object.keys(entry).length === 1)).safeParse(parsed);
    if (!list.success) throw gucHeadersError();
    for (const entry of list.data) {
      const [name, value] = Object.entries(entry)[0] as [string, string];
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      headers[name] = value;
    }
  }
  return { status, headers, body: answer.body };
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  if (answer.body === undefined || answer.status === 204) return reply.send();
  return reply.send(answer.body);
}

function withOptional(headers: Record<string, string>, name: string, value: string | undefined): Record<string, string> {
  if (value !== undefined) headers[name] = value;
  return headers;
}

// -------------------------------------------------------------------------------------------------

/** The error handler's view of who called: an anonymous caller gets 401 where a user gets 403. */
const CALLER_ROLE = Symbol('callerRole');
type WithRole = FastifyRequest & { [CALLER_ROLE]?: ApiRole };

export async function restRoutes(app: FastifyInstance, options: RestRoutesOptions): Promise<void> {
  const { pool, catalog } = options;
  installRestBodyParsers(app);

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toPostgrestError(error, (request as WithRole)[CALLER_ROLE] ?? 'anon');
    if (failure.status >= 500) request.log.error({ err: error }, 'rest request failed');
    if (failure.status === 401) {
      reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${failure.message.replace(/"/g, "'")}"`);
    }
    return reply.status(failure.status).header('content-type', 'application/json; charset=utf-8').send(failure.body());
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).header('content-type', 'application/json; charset=utf-8').send(invalidResourcePath().body()));

  async function caller(request: FastifyRequest): Promise<VerifiedToken> {
    const verified = await resolveCaller(request.headers, options.verifier);
    (request as WithRole)[CALLER_ROLE] = verified.role;
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
        const answered = statementResult(await client.query(spec.sql, spec.values));
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
    const prefs = parsePrefer(request.headers.prefer, snapshot.timezones);
    const relation = { schema: table.schema, name: table.name };
    const plan = buildReadPlan({ snapshot, schema: choice.schema, relation, params, action: kind === 'read' || kind === 'head' ? 'read' : 'mutate', topRange, maxRows: options.maxRows });
    if (kind === 'read' || kind === 'head') {
      const produced = negotiate(header(request, 'accept'));
      strictPreferences(prefs);
      return tableRead(request, reply, verified, { snapshot, choice, plan, prefs, produced, headOnly: kind === 'head', topRange });
    }
    const mutation = planMutation(snapshot, table, kind, params, prefs, plan, payload);
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

  interface Mutation {
    /** Builds the mutation SQL (it shares the statement's parameters). */
    build(ctx: SqlContext): string;
    returning: string[];
  }

  function planMutation(
    snapshot: CatalogSnapshot,
    table: Table,
    kind: TableAction,
    params: QueryParams,
    prefs: Preferences,
    plan: ReadNode,
    payload: ReturnType<typeof tablePayload> | undefined,
  ): Mutation {
    const relation = { schema: table.schema, name: table.name };
    const rootFilters = params.filters.filter((entry) => entry.path.length === 0).map((entry) => entry.filter);
    const rootLogic = params.logic.filter((entry) => entry.path.length === 0).map((entry) => resolveLogic(entry.tree));
    const wantsRows = prefs.representation === 'full' || prefs.representation === 'headers-only';
    const returning = wantsRows ? columnsForEmbeds(plan, table.primaryKey) : [];
    const columns = payload ? [...new Set(payload.columns)].sort() : [];
    for (const column of columns) if (!table.columns.has(column)) throw columnNotFound(table.name, column);
    const bodyColumns = columns.map((column) => {
      const info = table.columns.get(column);
      return { name: column, type: info?.type ?? 'text', defaultSql: info?.defaultSql };
    });
    const applyDefaults = prefs.missing === 'default';
    switch (kind) {
      case 'insert': {
        const conflictColumns = params.onConflict ?? table.primaryKey;
        return {
          returning,
          build: (ctx) =>
            insertSql({
              table: relation,
              columns,
              bodyRows: bodyRowsSql(ctx.params, payload?.json ?? '[]', bodyColumns, { isObject: payload?.isObject ?? false, applyDefaults, limitOne: false }),
              conflict: prefs.resolution ? { resolution: prefs.resolution, columns: conflictColumns } : undefined,
              putConditions: undefined,
              returning,
            }),
        };
      }
      case 'upsert': {
        const primaryKey = new Set(table.primaryKey);
        const onlyPrimaryKeyEq =
          params.logic.length === 0 &&
          primaryKey.size > 0 &&
          params.filterFields.size === primaryKey.size &&
          [...params.filterFields].every((field) => primaryKey.has(field)) &&
          rootFilters.every((filter) => !filter.expr.negate && filter.expr.operation.kind === 'quantified' && filter.expr.operation.operator === 'eq' && filter.expr.operation.quantifier === undefined);
        if (!onlyPrimaryKeyEq) throw invalidPutFilters();
        return {
          returning,
          build: (ctx) =>
            insertSql({
              table: relation,
              columns,
              bodyRows: bodyRowsSql(ctx.params, payload?.json ?? '{}', bodyColumns, { isObject: payload?.isObject ?? true, applyDefaults: false, limitOne: false }),
              conflict: { resolution: 'merge-duplicates', columns: table.primaryKey },
              putConditions: conditionsSql(ctx, plan, '"pgrst_body"', rootFilters, []),
              returning,
            }),
        };
      }
      case 'update':
        return {
          returning,
          build: (ctx) =>
            updateSql(
              relation,
              columns,
              bodyRowsSql(ctx.params, payload?.json ?? '{}', bodyColumns, { isObject: payload?.isObject ?? true, applyDefaults, limitOne: false }),
              whereOf(conditionsSql(ctx, plan, qualifiedName(relation), rootFilters, rootLogic)),
              returning,
            ),
        };
      case 'delete':
        return { returning, build: (ctx) => deleteSql(relation, whereOf(conditionsSql(ctx, plan, qualifiedName(relation), rootFilters, rootLogic)), returning) };
      default:
        throw unsupportedMethod(kind);
    }
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
    const prefs = parsePrefer(request.headers.prefer, snapshot.timezones);
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

type TableAction = 'read' | 'head' | 'insert' | 'upsert' | 'update' | 'delete' | 'options';

function tableAction(method: string): TableAction {
  switch (method) {
    case 'GET':
      return 'read';
    case 'HEAD':
      return 'head';
    case 'POST':
      return 'insert';
    case 'PUT':
      return 'upsert';
    case 'PATCH':
      return 'update';
    case 'DELETE':
      return 'delete';
    case 'OPTIONS':
      return 'options';
    default:
      throw unsupportedMethod(method);
  }
}

function allowedMethods(table: Table): string {
  if (table.isView) return 'OPTIONS,GET,HEAD';
  return ['OPTIONS,GET,HEAD', 'POST', ...(table.primaryKey.length > 0 ? ['PUT'] : []), 'PATCH', 'DELETE'].join(',');
}

function qualifiedName(relation: { schema: string; name: string }): string {
  return `"${relation.schema.replace(/"/g, '""')}"."${relation.name.replace(/"/g, '""')}"`;
}

function whereOf(conditions: string): string {
  return conditions === '' ? '' : ` WHERE ${conditions}`;
}

/**
 * The columns a mutation must return for the read that follows: all of them with `*`, else the
 * selected ones, the columns each embed joins on, and the primary key (for Location).
 */
function columnsForEmbeds(plan: ReadNode, primaryKey: string[]): string[] {
  const names = new Set(plan.select.map((column) => column.field.name));
  if (names.has('*') || (plan.select.length === 0 && plan.children.length === 0)) return ['*'];
  for (const child of plan.children) {
    const rel = child.relToParent;
    if (!rel) continue;
    if (rel.kind === 'computed') return ['*'];
    const c = rel.cardinality;
    const origin = c.kind === 'm2m' ? c.junction.sourceColumns.map(([column]) => column) : c.columns.map(([column]) => column);
    origin.forEach((column) => names.add(column));
  }
  primaryKey.forEach((column) => names.add(column));
  return [...names].sort();
}

/** A function's result columns a read needs: the embeds' and, at the top level, filtered and ordered ones. */
function columnsForCall(plan: ReadNode, params: QueryParams): string[] {
  const names = columnsForEmbeds(plan, []);
  if (names.includes('*')) return names;
  const used = new Set(names);
  const addTree = (tree: LogicTree) => {
    if (tree.kind === 'filter') used.add(tree.filter.field.name);
    else tree.children.forEach(addTree);
  };
  params.filters.filter((entry) => entry.path.length === 0).forEach((entry) => used.add(entry.filter.field.name));
  params.logic.filter((entry) => entry.path.length === 0).forEach((entry) => addTree(entry.tree));
  params.order.filter((entry) => entry.path.length === 0).forEach((entry) => entry.terms.forEach((term) => term.kind === 'field' && used.add(term.field.name)));
  return [...used].sort();
}

function encodeLocationPair(pair: string): string {
  const eq = pair.indexOf('=');
  return `${encodeURIComponent(pair.slice(0, eq))}=${encodeURIComponent(pair.slice(eq + 1))}`;
}

function planRowsOf(result: pg.QueryResult): number | undefined {
  const plan = z.array(z.object({ Plan: z.object({ 'Plan Rows': z.number() }).passthrough() }).passthrough()).safeParse(
    result.rows[0]?.['QUERY PLAN'],
  );
  return plan.success ? plan.data[0]?.Plan['Plan Rows'] : undefined;
}

/**
 * PostgREST's findProc: the overload whose required parameters are all given and whose parameters
 * cover every given name; failing that, a function of one unnamed json/jsonb (text, xml, bytea)
 * parameter called with a body of that type. Two candidates: 300 PGRST203.
 */
export function findFunction(
  overloads: RpcFunction[],
  given: string[],
  media: string,
  isPost: boolean,
  payload: RpcPayload | undefined,
): RpcFunction | undefined {
  const keys = new Set(given);
  const rawBody = isPost && ['text', 'xml', 'octet'].includes(media);
  const matches = overloads.filter((fn) => {
    if (payload?.kind === 'json' && payload.keys.length === 0 && !isObjectJson(payload.json)) return false;
    if (fn.arguments.length === 0) return keys.size === 0 && !rawBody;
    const names = new Set(fn.arguments.map((argument) => argument.name));
    return [...keys].every((key) => names.has(key)) && fn.arguments.every((argument) => argument.hasDefault || keys.has(argument.name));
  });
  const unnamedType: Record<string, string[]> = { json: ['json', 'jsonb'], text: ['text'], xml: ['xml'], octet: ['bytea'] };
  const fallbacks = overloads.filter(
    (fn) => isPost && fn.arguments.length === 1 && fn.arguments[0]?.name === '' && (unnamedType[media] ?? []).includes(fn.arguments[0]?.type ?? ''),
  );
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw ambiguousFunction(matches.map(describeOverload));
  if (fallbacks.length === 1) return fallbacks[0];
  if (fallbacks.length > 1) throw ambiguousFunction(fallbacks.map(describeOverload));
  return undefined;
}

function isObjectJson(json: string): boolean {
  return json.trimStart().startsWith('{');
}

function describeOverload(fn: RpcFunction) {
  return { schema: fn.schema, name: fn.name, arguments: fn.arguments.map((argument) => ({ name: argument.name, type: argument.type })) };
}

function callArguments(fn: RpcFunction, fromQuery: [string, string][] | undefined, payload: RpcPayload | undefined): CallArguments {
  const single = fn.arguments.length === 1 && fn.arguments[0]?.name === '' ? fn.arguments[0] : undefined;
  if (fromQuery !== undefined) {
    const values = new Map<string, string[]>();
    for (const [key, value] of fromQuery) values.set(key, [...(values.get(key) ?? []), value]);
    return { kind: 'text', values };
  }
  if (payload?.kind === 'form') return { kind: 'text', values: payload.values };
  if (single && payload) {
    const body = payload.kind === 'json' ? payload.json : payload.kind === 'raw' ? payload.text : null;
    return { kind: 'whole-body', body, type: single.type };
  }
  if (payload?.kind === 'json') return { kind: 'json', body: payload.json, names: payload.keys };
  return { kind: 'text', values: new Map() };
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
  if (isDatabaseError(error)) return fromDatabaseError(error, role);
  if (fastifyStatus && fastifyStatus < 500) return new PostgrestError(fastifyStatus, 'PGRST000', String(error));
  return new PostgrestError(500, 'PGRST000', 'localbase failed to answer the request');
}


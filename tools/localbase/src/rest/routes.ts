// /rest/v1: tables and RPCs of schema public, the PostgREST subset of docs/backend-compat.md.
// Each request is one transaction under the caller's role (request-transaction.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { MissingApiKeyError, resolveCaller } from '../caller.ts';
import { installJsonParser, InvalidJsonError, isBodyTooLarge, JSON_BODY_LIMIT_BYTES } from '../json-body.ts';
import { JwtError, type ApiRole, type TokenVerifier, type VerifiedToken } from '../jwt.ts';
import { ConnectionBusyError, httpRequestContext, runRequestStatement, SessionEndedError, withRequestTransaction } from '../request-transaction.ts';
import { EXPOSED_SCHEMA, type Catalog, type RpcFunction } from './catalog.ts';
import {
  badRequest,
  connectionLost,
  fromDatabaseError,
  isConnectionLost,
  isDatabaseError,
  PostgrestError,
  singleRowExpected,
  unknownFunction,
  unknownTable,
} from './errors.ts';
import { parseReadQuery, splitTopLevel, type ReadQuery } from './parse.ts';
import { parsePrefer, wantsSingleObject, type Preferences } from './prefer.ts';
import { callSql, deleteSql, insertSql, Params, qualifiedTable, readSql, rpcSql, tableScope, updateSql } from './sql.ts';

export interface RestRoutesOptions {
  pool: pg.Pool;
  catalog: Catalog;
  verifier: TokenVerifier;
  /** Called after a write committed (realtime looks for new changes). */
  onWrite: () => void;
}

const nameParams = z.object({ name: z.string().min(1).max(63) });
const rowObject = z.record(z.string(), z.unknown());
const insertBody = z.union([rowObject, z.array(rowObject)]);
const rpcBody = z.record(z.string(), z.unknown());

/** What one statement answered: see readSql. */
const resultRow = z.object({
  total: z.union([z.string(), z.number()]).nullable(),
  returned: z.union([z.string(), z.number()]).nullable(),
  body: z.string().nullable(),
});

interface StatementResult {
  total: number | undefined;
  returned: number;
  /** JSON text, or undefined for an empty (204/minimal) answer. */
  body: string | undefined;
}

function unquoteList(value: string | null): string[] | undefined {
  if (value === null) return undefined;
  return splitTopLevel(value).map((item) => item.trim().replace(/^"(.*)"$/, '$1'));
}

function queryOf(request: FastifyRequest): URLSearchParams {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
}

function checkProfile(request: FastifyRequest): void {
  for (const header of ['accept-profile', 'content-profile']) {
    const value = request.headers[header];
    if (value !== undefined && value !== EXPOSED_SCHEMA) {
      throw new PostgrestError(406, 'PGRST106', `The schema must be one of the following: ${EXPOSED_SCHEMA}`, null, null);
    }
  }
}

function statementResult(result: pg.QueryResult): StatementResult {
  const row = resultRow.parse(result.rows[0] ?? { total: null, returned: result.rowCount ?? 0, body: null });
  return {
    total: row.total === null ? undefined : Number(row.total),
    returned: Number(row.returned ?? 0),
    body: row.body ?? undefined,
  };
}

/** For `.single()`: exactly one row, else 406 (and the transaction rolls back). */
function singleObject(result: StatementResult): StatementResult {
  const rows = JSON.parse(result.body ?? '[]') as unknown[];
  if (rows.length !== 1) throw singleRowExpected(rows.length);
  return { ...result, body: JSON.stringify(rows[0]) };
}

function contentRange(offset: number, result: StatementResult, counted: boolean): string {
  const total = counted && result.total !== undefined ? String(result.total) : '*';
  if (result.returned === 0) return `*/${total}`;
  return `${offset}-${offset + result.returned - 1}/${total}`;
}

export async function restRoutes(app: FastifyInstance, options: RestRoutesOptions): Promise<void> {
  const { pool, catalog } = options;
  installJsonParser(app);

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const failure = toPostgrestError(error, (request as { callerRole?: ApiRole }).callerRole ?? 'anon');
    if (failure.status >= 500) request.log.error({ err: error }, 'rest request failed');
    if (failure.status === 401) {
      reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${failure.message.replace(/"/g, "'")}"`);
    }
    return reply.status(failure.status).send(failure.body());
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(badRequest(`localbase does not implement ${request.method} ${request.url.split('?')[0]}`).body()),
  );

  async function caller(request: FastifyRequest): Promise<VerifiedToken> {
    const verified = await resolveCaller(request.headers, options.verifier);
    (request as { callerRole?: ApiRole }).callerRole = verified.role;
    return verified;
  }

  /**
   * Runs one built statement as the caller. `single` asks for exactly one row (`.single()`); when
   * the statement writes, a mismatch must roll the write back, so the commit waits for the check.
   * Everything else goes to the database in one pipelined round trip.
   */
  async function execute(request: FastifyRequest, verified: VerifiedToken, sql: string, params: Params, single: boolean): Promise<StatementResult> {
    const context = httpRequestContext(request, verified);
    let result: StatementResult;
    if (single && !context.readOnly) {
      result = await withRequestTransaction(pool, context, async (client) => singleObject(statementResult(await client.query(sql, params.values))));
    } else {
      const read = statementResult(await runRequestStatement(pool, context, sql, params.values));
      result = single ? singleObject(read) : read;
    }
    if (!context.readOnly) options.onWrite();
    return result;
  }

  function answer(reply: FastifyReply, status: number, result: StatementResult, range?: string): FastifyReply {
    if (range) reply.header('content-range', range);
    if (result.body === undefined) return reply.status(status === 200 ? 204 : status).send();
    return reply.status(status).header('content-type', 'application/json; charset=utf-8').send(result.body);
  }

  app.get('/:name', async (request, reply) => {
    checkProfile(request);
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const table = await catalog.table(name);
    if (!table) throw unknownTable(name);
    const query = parseReadQuery(queryOf(request));
    const prefer = parsePrefer(request.headers.prefer);
    const single = wantsSingleObject(request.headers.accept);
    const params = new Params();
    const result = await execute(request, verified, readSql(qualifiedTable(table), query, tableScope(table), params, prefer.count), params, single);
    return answer(reply, 200, result, contentRange(query.offset ?? 0, result, prefer.count));
  });

  app.post('/:name', async (request, reply) => {
    checkProfile(request);
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const table = await catalog.table(name);
    if (!table) throw unknownTable(name);
    const url = queryOf(request);
    const parsedBody = insertBody.safeParse(request.body);
    if (!parsedBody.success) throw new PostgrestError(400, 'PGRST102', 'Empty or invalid json', 'the body must be a JSON object or an array of objects');
    const rows = Array.isArray(parsedBody.data) ? parsedBody.data : [parsedBody.data];
    const prefer = parsePrefer(request.headers.prefer);
    const columns = unquoteList(url.get('columns')) ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const writeOptions = { returnRepresentation: prefer.returnRepresentation, query: parseReadQuery(new URLSearchParams({ select: url.get('select') ?? '*' })) };
    const single = wantsSingleObject(request.headers.accept);
    const params = new Params();
    const sql = insertSql(
      { table, rows, columns, resolution: prefer.resolution, onConflict: unquoteList(url.get('on_conflict')) },
      writeOptions,
      params,
    );
    const result = await execute(request, verified, sql, params, single && prefer.returnRepresentation);
    return answer(reply, 201, prefer.returnRepresentation ? result : { ...result, body: undefined }, `*/${result.returned}`);
  });

  app.patch('/:name', async (request, reply) => {
    checkProfile(request);
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const table = await catalog.table(name);
    if (!table) throw unknownTable(name);
    const values = rowObject.safeParse(request.body);
    if (!values.success) throw new PostgrestError(400, 'PGRST102', 'Empty or invalid json', 'the body of an update must be a JSON object');
    return writeWithFilters(request, reply, verified, (query, prefer, params) =>
      updateSql(table, values.data, { returnRepresentation: prefer.returnRepresentation, query }, params),
    );
  });

  app.delete('/:name', async (request, reply) => {
    checkProfile(request);
    const { name } = nameParams.parse(request.params);
    const verified = await caller(request);
    const table = await catalog.table(name);
    if (!table) throw unknownTable(name);
    return writeWithFilters(request, reply, verified, (query, prefer, params) =>
      deleteSql(table, { returnRepresentation: prefer.returnRepresentation, query }, params),
    );
  });

  async function writeWithFilters(
    request: FastifyRequest,
    reply: FastifyReply,
    verified: VerifiedToken,
    build: (query: ReadQuery, prefer: Preferences, params: Params) => string,
  ): Promise<FastifyReply> {
    const query = parseReadQuery(queryOf(request));
    const prefer = parsePrefer(request.headers.prefer);
    const single = wantsSingleObject(request.headers.accept);
    const params = new Params();
    const result = await execute(request, verified, build(query, prefer, params), params, single && prefer.returnRepresentation);
    const range = `*/${result.returned}`;
    if (!prefer.returnRepresentation) return answer(reply, 204, { ...result, body: undefined }, range);
    return answer(reply, 200, result, range);
  }

  async function callFunction(
    request: FastifyRequest,
    reply: FastifyReply,
    args: Record<string, unknown>,
    filters: URLSearchParams,
    argumentsAreText: boolean,
  ) {
    const fnName = nameParams.parse(request.params).name;
    const verified = await caller(request);
    const overloads = (await catalog.functions(fnName)) ?? [];
    const fn = chooseOverload(overloads, Object.keys(args));
    if (!fn) throw unknownFunction(fnName, Object.keys(args).sort());
    const query = parseReadQuery(filters);
    const prefer = parsePrefer(request.headers.prefer);
    const single = wantsSingleObject(request.headers.accept);
    const params = new Params();
    const sql = rpcSql(fn, callSql(fn, args, params, argumentsAreText), query, params, prefer.count);
    const result = await execute(request, verified, sql, params, single && fn.returns.startsWith('setof'));
    if (fn.returns === 'void') return reply.status(204).send();
    const range = fn.returns === 'setof-composite' ? contentRange(query.offset ?? 0, result, prefer.count) : undefined;
    return answer(reply, 200, result, range);
  }

  app.post('/rpc/:name', async (request, reply) => {
    checkProfile(request);
    const args = rpcBody.safeParse(request.body ?? {});
    if (!args.success) throw new PostgrestError(400, 'PGRST102', 'Empty or invalid json', 'the body of an RPC must be a JSON object of named arguments');
    return callFunction(request, reply, args.data, queryOf(request), false);
  });

  app.get('/rpc/:name', async (request, reply) => {
    checkProfile(request);
    const { name } = nameParams.parse(request.params);
    const argumentNames = new Set(((await catalog.functions(name)) ?? []).flatMap((fn) => fn.arguments.map((argument) => argument.name)));
    const args: Record<string, unknown> = {};
    const filters = new URLSearchParams();
    for (const [key, value] of queryOf(request)) {
      if (argumentNames.has(key)) args[key] = value;
      else filters.append(key, value);
    }
    return callFunction(request, reply, args, filters, true);
  });
}

/** The overload whose named inputs cover the given names and whose required inputs are all given. */
export function chooseOverload(overloads: RpcFunction[], given: string[]): RpcFunction | undefined {
  const provided = new Set(given);
  const fits = overloads.filter((fn) => {
    const names = new Set(fn.arguments.map((argument) => argument.name));
    return (
      given.every((name) => names.has(name)) &&
      fn.arguments.every((argument) => argument.hasDefault || provided.has(argument.name))
    );
  });
  return fits.sort((a, b) => a.arguments.length - b.arguments.length)[0];
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

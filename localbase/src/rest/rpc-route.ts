// /rest/v1/rpc/<function>: picks the overload the arguments name (GET/HEAD: in the query; POST: in
// the body), and calls it in one statement that also filters, embeds and counts its rows.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { applyGucs, send, withOptional } from './answers.ts';
import { callArguments, columnsForCall, findFunction, functionTransaction } from './calls.ts';
import { qualifiedKey } from './catalog.ts';
import { invalidRpcMethod, maxAffectedOnSingleRpc, unknownFunction } from './errors.ts';
import { handlerFor, negotiate } from './negotiate.ts';
import { parseQueryParams } from './parse.ts';
import { mediaKind, rpcPayload, type RpcPayload } from './payload.ts';
import { buildReadPlan } from './plan.ts';
import { preferenceApplied, rollsBack } from './prefer.ts';
import { contentRange, rangedAnswer, topLevelRange } from './ranges.ts';
import {
  allChecks,
  bodyHeaders,
  header,
  maxAffectedCheck,
  nameParams,
  planAnswer,
  queryOf,
  requestSchema,
  singleCheck,
  sqlContext,
  strictMaxAffected,
  strictPreferences,
  type RestContext,
} from './route-context.ts';
import { callSourceSql, callStatement, countQuery, type BodyHandler, type RowShape } from './sql.ts';

export async function rpcRequest(
  rest: RestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { catalog, schemas, maxRows } = rest.options;
  const { name } = nameParams.parse(request.params);
  const verified = await rest.caller(request);
  const method = request.method;
  const choice = requestSchema(request, schemas);
  if (!['GET', 'HEAD', 'POST', 'OPTIONS'].includes(method)) throw invalidRpcMethod(method);
  const readCall = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  const params = parseQueryParams(queryOf(request), { rpcRead: readCall });
  const topRange = topLevelRange(method, params, header(request, 'range'));
  const contentType = header(request, 'content-type');
  const payload: RpcPayload | undefined = readCall ? undefined : rpcPayload(request.body, contentType);
  const argumentNames = readCall
    ? [...new Set(params.rpcArguments.map(([key]) => key))]
    : payload?.kind === 'json'
      ? payload.keys
      : payload?.kind === 'form'
        ? [...payload.values.keys()]
        : [];
  const { snapshot, found: overloads } = await catalog.resolve((s) =>
    s.functions.get(qualifiedKey(choice.schema, name)),
  );
  const media = readCall ? 'json' : mediaKind(contentType);
  const fn = findFunction(overloads ?? [], argumentNames, media, !readCall, payload);
  if (fn === undefined) {
    throw unknownFunction(
      snapshot,
      choice.schema,
      name,
      [...argumentNames].sort(),
      readCall ? 'get' : media === 'json' ? 'json' : 'other',
    );
  }
  if (method === 'OPTIONS') {
    return send(reply, {
      status: 200,
      headers: {
        allow: fn.volatility === 'volatile' ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST',
        'access-control-allow-origin': '*',
      },
      body: undefined,
    });
  }
  const prefs = await rest.preferencesOf(request);
  const composite = fn.returns === 'composite' || fn.returns === 'setof-composite';
  const relation = { schema: fn.schema, name: fn.returnTypeName ?? (composite ? 'record' : fn.name) };
  const plan = buildReadPlan({
    snapshot,
    schema: choice.schema,
    relation,
    params,
    action: 'call',
    topRange,
    maxRows,
    aggregates: rest.options.aggregates,
  });
  const produced = negotiate(header(request, 'accept'), rest.options.plans);
  strictPreferences(prefs);
  const single = fn.returns === 'void' || fn.returns === 'scalar' || fn.returns === 'composite';
  if (strictMaxAffected(prefs) !== undefined && single) throw maxAffectedOnSingleRpc();

  const ctx = sqlContext(snapshot);
  const args = callArguments(fn, readCall ? params.rpcArguments : undefined, payload);
  const shape: RowShape =
    fn.returns === 'setof-composite'
      ? 'rows'
      : fn.returns === 'setof-scalar'
        ? 'setof-scalar'
        : fn.returns === 'composite'
          ? 'single-row'
          : 'scalar';
  const source = callSourceSql(ctx.params, fn, args, columnsForCall(plan, params));
  const count = prefs.count === 'exact' || prefs.count === 'estimated' ? countQuery(ctx, plan) : undefined;
  const handler: BodyHandler = method === 'HEAD' ? { kind: 'none' } : handlerFor(produced);
  const sql = callStatement(ctx, source, plan, handler, shape, count);
  const call = functionTransaction(fn, rest.options.hoistedSettings);
  if (produced.kind === 'plan') {
    // A POST may call a function that writes: what `analyze` ran is undone. A GET is read-only anyway.
    const text = await rest.explain(request, verified, {
      sql,
      values: ctx.params.values,
      plan: produced,
      timezone: prefs.timezone,
      rollback: true,
      call,
    });
    return send(reply, planAnswer(produced, choice, text));
  }
  const { result } = await rest.run(request, verified, {
    sql,
    values: ctx.params.values,
    timezone: prefs.timezone,
    check: allChecks(singleCheck(produced), maxAffectedCheck(prefs)),
    rollback: rollsBack(prefs, rest.options.txEnd),
    call,
  });
  const lower = topRange.offset;
  const total = result.total;
  const headers: Record<string, string> = { 'content-range': contentRange(lower, result.returned, total) };
  withOptional(headers, 'preference-applied', preferenceApplied(prefs, 'call'));
  if (fn.returns === 'void') return send(reply, applyGucs({ status: 204, headers, body: undefined }, result));
  Object.assign(headers, bodyHeaders(produced, choice));
  return send(
    reply,
    applyGucs(
      rangedAnswer(lower, result.returned, total, headers, method === 'HEAD' ? undefined : result.body),
      result,
    ),
  );
}

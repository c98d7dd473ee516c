// /rest/v1/<table>: resolves the table or view and the request's parts, then hands a read to
// table-read.ts and a write to table-write.ts (OPTIONS answers here).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { send } from './answers.ts';
import { qualifiedKey } from './catalog.ts';
import { unknownTable } from './errors.ts';
import { allowedMethods, planMutation, tableAction } from './mutations.ts';
import { negotiate } from './negotiate.ts';
import { parseQueryParams } from './parse.ts';
import { tablePayload } from './payload.ts';
import { buildReadPlan } from './plan.ts';
import { topLevelRange } from './ranges.ts';
import { header, nameParams, queryOf, requestSchema, strictPreferences, type RestContext } from './route-context.ts';
import { tableRead } from './table-read.ts';
import { tableWrite } from './table-write.ts';

export async function tableRequest(
  rest: RestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { catalog, schemas, maxRows } = rest.options;
  const { name } = nameParams.parse(request.params);
  const verified = await rest.caller(request);
  const method = request.method;
  const choice = requestSchema(request, schemas);
  const kind = tableAction(method);
  const params = parseQueryParams(queryOf(request));
  const topRange = topLevelRange(method, params, header(request, 'range'));
  const payload =
    kind === 'insert' || kind === 'upsert' || kind === 'update'
      ? tablePayload(request.body, header(request, 'content-type'), params.columns)
      : undefined;
  const { snapshot, found: table } = await catalog.resolve((s) => s.tables.get(qualifiedKey(choice.schema, name)));
  if (!table) throw unknownTable(snapshot, choice.schema, name);
  if (kind === 'options')
    return send(reply, {
      status: 200,
      headers: { allow: allowedMethods(table), 'access-control-allow-origin': '*' },
      body: undefined,
    });
  const prefs = await rest.preferencesOf(request);
  const relation = { schema: table.schema, name: table.name };
  const plan = buildReadPlan({
    snapshot,
    schema: choice.schema,
    relation,
    params,
    action: kind === 'read' || kind === 'head' ? 'read' : 'mutate',
    topRange,
    maxRows,
    aggregates: rest.options.aggregates,
  });
  if (kind === 'read' || kind === 'head') {
    const produced = negotiate(header(request, 'accept'), rest.options.plans);
    strictPreferences(prefs);
    return tableRead(rest, request, reply, verified, {
      snapshot,
      choice,
      plan,
      prefs,
      produced,
      headOnly: kind === 'head',
      topRange,
    });
  }
  const mutation = planMutation(table, kind, params, prefs, plan, payload);
  strictPreferences(prefs);
  const produced = negotiate(header(request, 'accept'), rest.options.plans);
  return tableWrite(rest, request, reply, verified, { snapshot, choice, table, kind, plan, prefs, produced, mutation });
}

// GET and HEAD on a table or view: one statement that reads, embeds and (when asked) counts; the
// count in it, or EXPLAIN of the count query (planned), or both (estimated), as PostgREST does.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerifiedToken } from '../jwt.ts';
import { applyGucs, send, withOptional, type StatementResult } from './answers.ts';
import type { CatalogSnapshot } from './catalog.ts';
import { handlerFor, type Produced } from './negotiate.ts';
import type { RangeParam } from './query-types.ts';
import type { ReadNode } from './plan.ts';
import { preferenceApplied, rollsBack, type Preferences } from './prefer.ts';
import { contentRange, rangedAnswer } from './ranges.ts';
import {
  bodyHeaders,
  planAnswer,
  singleCheck,
  sqlContext,
  type RestContext,
  type RunSpec,
  type SchemaChoice,
} from './route-context.ts';
import { countQuery, Params, readStatement, type BodyHandler, type SqlContext } from './sql.ts';

export interface ReadRequest {
  snapshot: CatalogSnapshot;
  choice: SchemaChoice;
  plan: ReadNode;
  prefs: Preferences;
  produced: Produced;
  headOnly: boolean;
  topRange: RangeParam;
}

/** Counting for reads: the count query, or EXPLAIN of it (planned), or both (estimated). */
function countParts(
  ctx: SqlContext,
  node: ReadNode,
  prefs: Preferences,
  maxRows: number | undefined,
): { inStatement: string | undefined; explain: RunSpec['explain'] } {
  if (!prefs.count) return { inStatement: undefined, explain: undefined };
  const explain = () => {
    const explainCtx: SqlContext = { ...ctx, params: new Params() };
    return { sql: `EXPLAIN (FORMAT JSON) ${countQuery(explainCtx, node)}`, values: explainCtx.params.values };
  };
  if (prefs.count === 'exact') return { inStatement: countQuery(ctx, node), explain: undefined };
  if (prefs.count === 'planned') return { inStatement: undefined, explain: explain() };
  const limited = maxRows === undefined ? countQuery(ctx, node) : `${countQuery(ctx, node)} LIMIT ${maxRows + 1}`;
  return { inStatement: limited, explain: explain() };
}

function countedTotal(
  prefs: Preferences,
  result: StatementResult,
  planRows: number | undefined,
  maxRows: number | undefined,
): number | undefined {
  if (prefs.count === 'planned') return planRows;
  if (prefs.count === 'estimated' && (maxRows === undefined || (result.total ?? 0) > maxRows)) {
    return Math.max(result.total ?? 0, planRows ?? 0);
  }
  return result.total;
}

export async function tableRead(
  rest: RestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  verified: VerifiedToken,
  read: ReadRequest,
): Promise<FastifyReply> {
  const { maxRows } = rest.options;
  const ctx = sqlContext(read.snapshot);
  const counting = countParts(ctx, read.plan, read.prefs, maxRows);
  const handler: BodyHandler = read.headOnly ? { kind: 'none' } : handlerFor(read.produced);
  const sql = readStatement(ctx, read.plan, handler, counting.inStatement);
  if (read.produced.kind === 'plan') {
    const text = await rest.explain(request, verified, {
      sql,
      values: ctx.params.values,
      plan: read.produced,
      timezone: read.prefs.timezone,
      rollback: false,
    });
    return send(reply, planAnswer(read.produced, read.choice, text));
  }
  const { result, planRows } = await rest.run(request, verified, {
    sql,
    values: ctx.params.values,
    explain: counting.explain,
    timezone: read.prefs.timezone,
    check: singleCheck(read.produced),
    rollback: rollsBack(read.prefs, rest.options.txEnd),
  });
  const total = countedTotal(read.prefs, result, planRows, maxRows);
  const lower = read.topRange.offset;
  const headers = withOptional(
    { 'content-range': contentRange(lower, result.returned, total), ...bodyHeaders(read.produced, read.choice) },
    'preference-applied',
    preferenceApplied(read.prefs, 'read'),
  );
  return send(
    reply,
    applyGucs(rangedAnswer(lower, result.returned, total, headers, read.headOnly ? undefined : result.body), result),
  );
}

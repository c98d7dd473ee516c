// POST, PATCH, PUT and DELETE on a table: one statement that writes and returns what was asked
// (the rows, their primary keys for Location, or nothing), checked inside its transaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerifiedToken } from '../jwt.ts';
import { applyGucs, send, withOptional } from './answers.ts';
import type { CatalogSnapshot, Table } from './catalog.ts';
import { putPrimaryKeyMismatch } from './errors.ts';
import { encodeLocationPair, type Mutation, type TableAction } from './mutations.ts';
import { handlerFor, type Produced } from './negotiate.ts';
import type { ReadNode } from './plan.ts';
import { preferenceApplied, rollsBack, type PreferenceApplication, type Preferences } from './prefer.ts';
import { contentRange } from './ranges.ts';
import {
  allChecks,
  bodyHeaders,
  maxAffectedCheck,
  planAnswer,
  queryOf,
  singleCheck,
  sqlContext,
  type RestContext,
  type ResultCheck,
  type SchemaChoice,
} from './route-context.ts';
import { writeStatement, type BodyHandler } from './sql.ts';

export interface WriteRequest {
  snapshot: CatalogSnapshot;
  choice: SchemaChoice;
  table: Table;
  kind: TableAction;
  plan: ReadNode;
  prefs: Preferences;
  produced: Produced;
  mutation: Mutation;
}

/** A PUT writes exactly the row its filters name. */
const onePutRow: ResultCheck = (result) => {
  if (result.returned !== 1) throw putPrimaryKeyMismatch();
};

export async function tableWrite(
  rest: RestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  verified: VerifiedToken,
  write: WriteRequest,
): Promise<FastifyReply> {
  const { prefs, kind } = write;
  const ctx = sqlContext(write.snapshot);
  const full = prefs.representation === 'full';
  const handler: BodyHandler = full ? handlerFor(write.produced) : { kind: 'none' };
  const statement = writeStatement(ctx, write.mutation.build(ctx), write.plan, handler, {
    countInserted: kind === 'upsert' || (kind === 'insert' && prefs.resolution === 'merge-duplicates'),
    locationColumns: kind === 'insert' && prefs.representation === 'headers-only' ? write.table.primaryKey : undefined,
  });
  const check = allChecks(
    // As PostgREST: asking for one object makes a write of any other number of rows fail,
    // whatever it returns.
    kind === 'upsert' ? onePutRow : singleCheck(write.produced),
    kind === 'update' || kind === 'delete' ? maxAffectedCheck(prefs) : undefined,
  );
  if (write.produced.kind === 'plan') {
    // EXPLAIN ANALYZE runs the write: it is always undone, whatever db-tx-end says.
    const text = await rest.explain(request, verified, {
      sql: statement,
      values: ctx.params.values,
      plan: write.produced,
      timezone: prefs.timezone,
      rollback: true,
    });
    return send(reply, planAnswer(write.produced, write.choice, text));
  }
  const { result } = await rest.run(request, verified, {
    sql: statement,
    values: ctx.params.values,
    timezone: prefs.timezone,
    check,
    rollback: rollsBack(prefs, rest.options.txEnd),
  });
  const counted = prefs.count === 'exact' || prefs.count === 'estimated' ? result.returned : undefined;
  const applied = preferenceApplied(
    prefs,
    kind as PreferenceApplication,
    kind !== 'insert' || write.table.primaryKey.length > 0 || queryOf(request).has('on_conflict'),
  );
  const headers: Record<string, string> = {};
  let status: number;
  if (kind === 'insert') {
    if (result.location.length > 0)
      headers.location = `/${write.table.name}?${result.location.map((pair) => encodeLocationPair(pair)).join('&')}`;
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

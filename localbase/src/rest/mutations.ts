// Writes to a table: the action a method means, and the INSERT / UPDATE / DELETE (or PUT's
// single-row upsert) a request asks for, checked against the catalog before any SQL is built.
import type { Table } from './catalog.ts';
import { columnNotFound, invalidPutFilters, unsupportedMethod } from './errors.ts';
import type { QueryParams } from './query-types.ts';
import type { tablePayload } from './payload.ts';
import { resolveLogic, type ReadNode } from './plan.ts';
import type { Preferences } from './prefer.ts';
import { bodyRowsSql, conditionsSql, deleteSql, insertSql, updateSql, type SqlContext } from './sql.ts';

export type TableAction = 'read' | 'head' | 'insert' | 'upsert' | 'update' | 'delete' | 'options';

export function tableAction(method: string): TableAction {
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

export function allowedMethods(table: Table): string {
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
export function columnsForEmbeds(plan: ReadNode, primaryKey: string[]): string[] {
  const names = new Set(plan.select.map((column) => column.field.name));
  if (names.has('*') || (plan.select.length === 0 && plan.children.length === 0)) return ['*'];
  for (const child of plan.children) {
    const rel = child.relToParent;
    if (!rel) continue;
    if (rel.kind === 'computed') return ['*'];
    const c = rel.cardinality;
    const origin =
      c.kind === 'm2m' ? c.junction.sourceColumns.map(([column]) => column) : c.columns.map(([column]) => column);
    origin.forEach((column) => names.add(column));
  }
  primaryKey.forEach((column) => names.add(column));
  return [...names].sort();
}

export function encodeLocationPair(pair: string): string {
  const eq = pair.indexOf('=');
  return `${encodeURIComponent(pair.slice(0, eq))}=${encodeURIComponent(pair.slice(eq + 1))}`;
}

export interface Mutation {
  /** Builds the mutation SQL (it shares the statement's parameters). */
  build(ctx: SqlContext): string;
  returning: string[];
}

export function planMutation(
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
            bodyRows: bodyRowsSql(ctx.params, payload?.json ?? '[]', bodyColumns, {
              isObject: payload?.isObject ?? false,
              applyDefaults,
              limitOne: false,
            }),
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
        rootFilters.every(
          (filter) =>
            !filter.expr.negate &&
            filter.expr.operation.kind === 'quantified' &&
            filter.expr.operation.operator === 'eq' &&
            filter.expr.operation.quantifier === undefined,
        );
      if (!onlyPrimaryKeyEq) throw invalidPutFilters();
      return {
        returning,
        build: (ctx) =>
          insertSql({
            table: relation,
            columns,
            bodyRows: bodyRowsSql(ctx.params, payload?.json ?? '{}', bodyColumns, {
              isObject: payload?.isObject ?? true,
              applyDefaults: false,
              limitOne: false,
            }),
            conflict: { resolution: 'merge-duplicates', columns: table.primaryKey },
            putConditions: conditionsSql(ctx, plan, '"pgrst_body"', rootFilters, []),
            returning,
          }),
      };
    }
    case 'update': {
      // An empty body changes nothing; building its parameters anyway would bind values the
      // statement never reads, which the database refuses.
      const build = (ctx: SqlContext) =>
        columns.length === 0
          ? updateSql(relation, columns, '', '', returning)
          : updateSql(
              relation,
              columns,
              bodyRowsSql(ctx.params, payload?.json ?? '{}', bodyColumns, {
                isObject: payload?.isObject ?? true,
                applyDefaults,
                limitOne: false,
              }),
              whereOf(conditionsSql(ctx, plan, qualifiedName(relation), rootFilters, rootLogic)),
              returning,
            );
      return { returning, build };
    }
    case 'delete':
      return {
        returning,
        build: (ctx) =>
          deleteSql(
            relation,
            whereOf(conditionsSql(ctx, plan, qualifiedName(relation), rootFilters, rootLogic)),
            returning,
          ),
      };
    default:
      throw unsupportedMethod(kind);
  }
}

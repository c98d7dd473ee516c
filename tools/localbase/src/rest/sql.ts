// Turns parsed requests into SQL. Identifiers come only from catalog entries (quoted), values only
// as bind parameters; a name the catalog does not know is an error before any SQL exists.
import { EXPOSED_SCHEMA, type RpcFunction, type Table } from './catalog.ts';
import { badRequest, PostgrestError, unknownColumn } from './errors.ts';
import type { Condition, Filter, OrderTerm, ReadQuery } from './parse.ts';

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function qualifiedTable(table: Table): string {
  return `${quoteIdent(EXPOSED_SCHEMA)}.${quoteIdent(table.name)}`;
}

/** Bind parameters collected while building one statement. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The columns a statement may name: a table's, or a function's result columns. */
export interface ColumnScope {
  label: string;
  has(column: string): boolean;
}

export function tableScope(table: Table): ColumnScope {
  return { label: table.name, has: (column) => table.columns.has(column) };
}

export function resultScope(fn: RpcFunction): ColumnScope {
  const columns = new Set(fn.resultColumns);
  return { label: fn.name, has: (column) => columns.has(column) };
}

function column(scope: ColumnScope, name: string): string {
  if (!scope.has(name)) throw unknownColumn(name, scope.label);
  return quoteIdent(name);
}

const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const IS_VALUES = { null: 'null', not_null: 'not null', true: 'true', false: 'false', unknown: 'unknown' } as const;

function filterSql(filter: Filter, scope: ColumnScope, params: Params): string {
  const target = column(scope, filter.column);
  let sql: string;
  switch (filter.operator) {
    case 'in':
      // The parameter's type is inferred from the column (an array of it).
      sql = `${target} = any(${params.add(filter.value)})`;
      break;
    case 'is': {
      const keyword = IS_VALUES[String(filter.value).toLowerCase() as keyof typeof IS_VALUES];
      sql = `${target} is ${keyword}`;
      break;
    }
    case 'like':
    case 'ilike':
      // PostgREST lets `*` stand for `%` so patterns survive URL encoding.
      sql = `${target}::text ${filter.operator} ${params.add(String(filter.value).replace(/\*/g, '%'))}`;
      break;
    default:
      sql = `${target} ${COMPARISONS[filter.operator]} ${params.add(filter.value)}`;
  }
  return filter.negate ? `not (${sql})` : sql;
}

function conditionSql(condition: Condition, scope: ColumnScope, params: Params): string {
  if (condition.kind === 'filter') return filterSql(condition, scope, params);
  const parts = condition.children.map((child) => conditionSql(child, scope, params));
  const joined = `(${parts.join(` ${condition.join} `)})`;
  return condition.negate ? `not ${joined}` : joined;
}

export function whereSql(conditions: Condition[], scope: ColumnScope, params: Params): string {
  if (conditions.length === 0) return '';
  return ` where ${conditions.map((condition) => conditionSql(condition, scope, params)).join(' and ')}`;
}

function orderSql(order: OrderTerm[], scope: ColumnScope): string {
  if (order.length === 0) return '';
  const terms = order.map((term) => {
    const nulls = term.nulls ? ` nulls ${term.nulls}` : '';
    return `${column(scope, term.column)} ${term.descending ? 'desc' : 'asc'}${nulls}`;
  });
  return ` order by ${terms.join(', ')}`;
}

function pagingSql(query: ReadQuery, params: Params): string {
  let sql = '';
  if (query.limit !== undefined) sql += ` limit ${params.add(query.limit)}`;
  if (query.offset !== undefined) sql += ` offset ${params.add(query.offset)}`;
  return sql;
}

export function selectListSql(query: ReadQuery, scope: ColumnScope): string {
  if (!query.select) return '*';
  return query.select.map((item) => `${column(scope, item.column)} as ${quoteIdent(item.alias)}`).join(', ');
}

/**
 * A read as one statement answering `total` (rows matching the filters, before paging; only when
 * counted) and `body` (the JSON array, built by Postgres so its types are Postgres's).
 */
export function readSql(source: string, query: ReadQuery, scope: ColumnScope, params: Params, withCount: boolean): string {
  const where = whereSql(query.conditions, scope, params);
  const total = withCount ? `(select count(*) from ${source}${where})::bigint` : 'null::bigint';
  const rows = `select ${selectListSql(query, scope)} from ${source}${where}${orderSql(query.order, scope)}${pagingSql(query, params)}`;
  return `select ${total} as total, count(*)::bigint as returned, coalesce(json_agg(_row), '[]')::text as body from (${rows}) _row`;
}

export interface WriteOptions {
  returnRepresentation: boolean;
  query: ReadQuery;
}

/** Wraps a writing statement: with representation its RETURNING rows become the JSON body. */
function writeResultSql(statement: string, options: WriteOptions, scope: ColumnScope): string {
  if (!options.returnRepresentation) return statement;
  return `with _written as (${statement} returning *)
    select count(*)::bigint as total, count(*)::bigint as returned, coalesce(json_agg(_row), '[]')::text as body
    from (select ${selectListSql(options.query, scope)} from _written) _row`;
}

export type Resolution = 'merge-duplicates' | 'ignore-duplicates' | undefined;

export interface InsertPlan {
  table: Table;
  rows: Record<string, unknown>[];
  /** The columns to write: the `columns` parameter, else every key of the rows. */
  columns: string[];
  resolution: Resolution;
  onConflict: string[] | undefined;
}

function writableColumns(table: Table, columns: string[]): string[] {
  for (const name of columns) {
    if (!table.columns.has(name)) {
      throw new PostgrestError(
        400,
        'PGRST204',
        `Could not find the '${name}' column of '${table.name}' in the schema cache`,
      );
    }
  }
  return columns.map(quoteIdent);
}

export function insertSql(plan: InsertPlan, options: WriteOptions, params: Params): string {
  const target = qualifiedTable(plan.table);
  const columns = writableColumns(plan.table, plan.columns);
  if (columns.length === 0) {
    if (plan.rows.length !== 1) throw badRequest('localbase cannot insert several rows without any columns');
    return writeResultSql(`insert into ${target} default values`, options, tableScope(plan.table));
  }
  // json_populate_recordset gives every value the column's own type, as PostgREST does.
  let statement = `insert into ${target} (${columns.join(', ')})
    select ${columns.join(', ')} from json_populate_recordset(null::${target}, ${params.add(JSON.stringify(plan.rows))}::json)`;
  if (plan.resolution) {
    const conflictColumns = plan.onConflict ?? plan.table.primaryKey;
    if (conflictColumns.length === 0) throw badRequest(`an upsert on ${plan.table.name} needs on_conflict: it has no primary key`);
    const conflict = conflictColumns.map((name) => column(tableScope(plan.table), name)).join(', ');
    if (plan.resolution === 'ignore-duplicates') {
      statement += ` on conflict (${conflict}) do nothing`;
    } else {
      const assignments = columns.map((name) => `${name} = excluded.${name}`).join(', ');
      statement += ` on conflict (${conflict}) do update set ${assignments}`;
    }
  }
  return writeResultSql(statement, options, tableScope(plan.table));
}

export function updateSql(table: Table, values: Record<string, unknown>, options: WriteOptions, params: Params): string {
  const target = qualifiedTable(table);
  const columns = writableColumns(table, Object.keys(values));
  if (columns.length === 0) throw badRequest('an update needs at least one column in its body');
  const source = `select ${columns.join(', ')} from json_populate_record(null::${target}, ${params.add(JSON.stringify(values))}::json)`;
  const statement = `update ${target} set (${columns.join(', ')}) = (${source})${whereSql(options.query.conditions, tableScope(table), params)}`;
  return writeResultSql(statement, options, tableScope(table));
}

export function deleteSql(table: Table, options: WriteOptions, params: Params): string {
  const statement = `delete from ${qualifiedTable(table)}${whereSql(options.query.conditions, tableScope(table), params)}`;
  return writeResultSql(statement, options, tableScope(table));
}

/**
 * The call expression of one overload with named arguments, each cast to its declared type.
 * Arguments from a JSON body are JSON values; from a GET query they are already Postgres text.
 */
export function callSql(fn: RpcFunction, args: Record<string, unknown>, params: Params, argumentsAreText = false): string {
  const named = fn.arguments
    .filter((argument) => Object.hasOwn(args, argument.name))
    .map((argument) => {
      const value = argumentsAreText ? args[argument.name] : argumentValue(args[argument.name], argument.type);
      return `${quoteIdent(argument.name)} => ${params.add(value)}::${argument.type}`;
    });
  return `${quoteIdent(EXPOSED_SCHEMA)}.${quoteIdent(fn.name)}(${named.join(', ')})`;
}

function argumentValue(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'json' || type === 'jsonb') return JSON.stringify(value);
  if (Array.isArray(value)) return type.endsWith('[]') ? value : JSON.stringify(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function rpcSql(fn: RpcFunction, call: string, query: ReadQuery, params: Params, withCount: boolean): string {
  switch (fn.returns) {
    case 'void':
      return `select ${call} as _void, null::bigint as total, 1::bigint as returned, null::text as body`;
    case 'scalar':
      return `select null::bigint as total, 1::bigint as returned, to_json(${call})::text as body`;
    case 'composite':
      return `select null::bigint as total, 1::bigint as returned, to_json(_result)::text as body from ${call} _result`;
    case 'setof-scalar':
      return `select null::bigint as total, count(*)::bigint as returned, coalesce(json_agg(_row.value), '[]')::text as body
        from (select * from ${call} _value${pagingSql(query, params)}) _row(value)`;
    case 'setof-composite':
      return readSql(`${call} _result`, query, resultScope(fn), params, withCount);
  }
}

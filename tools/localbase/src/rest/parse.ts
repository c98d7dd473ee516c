// PostgREST's URL grammar, parsed into plain data: select lists, column filters with `not.`,
// `or=(...)` / `and=(...)` trees, order and paging. Nothing here touches SQL; sql.ts checks every
// name against the catalog before it becomes an identifier.
import { badRequest } from './errors.ts';

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'in', 'is'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Filter {
  kind: 'filter';
  column: string;
  operator: Operator;
  negate: boolean;
  /** A string for most operators, a list for `in`. */
  value: string | string[];
}

export interface LogicTree {
  kind: 'logic';
  join: 'and' | 'or';
  negate: boolean;
  children: Condition[];
}

export type Condition = Filter | LogicTree;

export interface SelectItem {
  column: string;
  alias: string;
}

export interface OrderTerm {
  column: string;
  descending: boolean;
  nulls: 'first' | 'last' | undefined;
}

export interface ReadQuery {
  /** undefined = every column (`*`). */
  select: SelectItem[] | undefined;
  conditions: Condition[];
  order: OrderTerm[];
  limit: number | undefined;
  offset: number | undefined;
}

/** Query keys with a meaning of their own; every other key is a column filter. */
const RESERVED_KEYS = new Set(['select', 'order', 'limit', 'offset', 'on_conflict', 'columns']);
const LOGIC_KEYS = new Set(['or', 'and', 'not.or', 'not.and']);

/** Splits on commas that are not inside parentheses or double quotes. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && quoted && i + 1 < text.length) {
      current += char + (text[i + 1] as string);
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === '(') depth++;
    else if (!quoted && char === ')') depth--;
    if (char === ',' && depth === 0 && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (quoted || depth !== 0) throw badRequest(`"failed to parse" unbalanced quotes or parentheses in (${text})`);
  parts.push(current);
  return parts;
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return text;
}

function isOperator(text: string): text is Operator {
  return (OPERATORS as readonly string[]).includes(text);
}

/** Parses `op.value` or `not.op.value` for one column. */
export function parseFilter(column: string, expression: string): Filter {
  let rest = expression;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const operator = dot < 0 ? rest : rest.slice(0, dot);
  const operand = dot < 0 ? '' : rest.slice(dot + 1);
  if (dot < 0 || !isOperator(operator)) {
    throw badRequest(
      `"failed to parse filter (${expression})" (line 1, column 1)`,
      `unknown or unsupported operator "${operator}"`,
      `localbase supports ${OPERATORS.join(', ')}, each optionally prefixed with not.`,
    );
  }
  if (operator === 'in') {
    if (!operand.startsWith('(') || !operand.endsWith(')')) {
      throw badRequest(`"failed to parse filter (${expression})"`, 'in. expects a list: in.(a,b,c)');
    }
    const inner = operand.slice(1, -1);
    const values = inner === '' ? [] : splitTopLevel(inner).map((value) => unquote(value.trim()));
    return { kind: 'filter', column: unquote(column), operator, negate, value: values };
  }
  if (operator === 'is' && !['null', 'not_null', 'true', 'false', 'unknown'].includes(operand.toLowerCase())) {
    throw badRequest(`"failed to parse filter (${expression})"`, 'is. accepts null, not_null, true, false or unknown');
  }
  return { kind: 'filter', column: unquote(column), operator, negate, value: unquote(operand) };
}

/** Parses the inside of `or=(...)`: filters `col.op.value` and nested `and(...)`/`not.or(...)`. */
export function parseLogic(key: string, expression: string): LogicTree {
  const negate = key.startsWith('not.');
  const join = (negate ? key.slice(4) : key) as 'and' | 'or';
  if (!expression.startsWith('(') || !expression.endsWith(')')) {
    throw badRequest(`"failed to parse logic tree (${expression})"`, `${key} expects a parenthesised list`);
  }
  const children = splitTopLevel(expression.slice(1, -1)).map((part): Condition => {
    const item = part.trim();
    const nested = /^(not\.)?(and|or)\(/.exec(item);
    if (nested) {
      const nestedKey = `${nested[1] ?? ''}${nested[2]}`;
      return parseLogic(nestedKey, item.slice(nestedKey.length));
    }
    const dot = item.indexOf('.');
    if (dot <= 0) throw badRequest(`"failed to parse logic tree (${expression})"`, `"${item}" is not column.operator.value`);
    return parseFilter(item.slice(0, dot), item.slice(dot + 1));
  });
  return { kind: 'logic', join, negate, children };
}

export function parseSelect(select: string | undefined): SelectItem[] | undefined {
  if (select === undefined || select.trim() === '' || select.trim() === '*') return undefined;
  return splitTopLevel(select).map((raw) => {
    const item = raw.trim();
    if (item === '*') throw badRequest('"failed to parse select" mixing * with columns is not supported by localbase');
    if (/[()]|->|\.\.\.|::/.test(item)) {
      throw badRequest(
        `"failed to parse select parameter (${select})"`,
        `"${item}": embedded resources, JSON paths, spreads and casts are not supported by localbase`,
      );
    }
    const colon = item.indexOf(':');
    const alias = colon < 0 ? unquote(item) : unquote(item.slice(0, colon));
    const column = colon < 0 ? unquote(item) : unquote(item.slice(colon + 1));
    if (column === '' || alias === '') throw badRequest(`"failed to parse select parameter (${select})"`);
    return { column, alias };
  });
}

export function parseOrder(order: string | undefined): OrderTerm[] {
  if (!order) return [];
  return splitTopLevel(order).map((raw) => {
    const parts = raw.trim().split('.');
    const column = unquote(parts[0] ?? '');
    let descending = false;
    let nulls: OrderTerm['nulls'];
    for (const modifier of parts.slice(1)) {
      if (modifier === 'asc') descending = false;
      else if (modifier === 'desc') descending = true;
      else if (modifier === 'nullsfirst') nulls = 'first';
      else if (modifier === 'nullslast') nulls = 'last';
      else throw badRequest(`"failed to parse order (${order})"`, `unknown order modifier "${modifier}"`);
    }
    if (!column) throw badRequest(`"failed to parse order (${order})"`);
    return { column, descending, nulls };
  });
}

function parseCount(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`"failed to parse ${name}" (${value})`, `${name} must be a non-negative integer`);
  return Number(value);
}

/** Reads a URL query (each key may repeat) into a ReadQuery. */
export function parseReadQuery(query: URLSearchParams, ignoredKeys: ReadonlySet<string> = new Set()): ReadQuery {
  const conditions: Condition[] = [];
  for (const [key, value] of query) {
    if (RESERVED_KEYS.has(key) || ignoredKeys.has(key)) continue;
    if (LOGIC_KEYS.has(key)) conditions.push(parseLogic(key, value));
    else conditions.push(parseFilter(key, value));
  }
  return {
    select: parseSelect(query.get('select') ?? undefined),
    conditions,
    order: parseOrder(query.get('order') ?? undefined),
    limit: parseCount('limit', query.get('limit') ?? undefined),
    offset: parseCount('offset', query.get('offset') ?? undefined),
  };
}

// Choosing the function a call means and passing it its arguments, as PostgREST does.
import type { RpcFunction } from './catalog.ts';
import { ambiguousFunction } from './errors.ts';
import type { LogicTree, QueryParams } from './query-types.ts';
import type { RpcPayload } from './payload.ts';
import type { ReadNode } from './plan.ts';
import { columnsForEmbeds } from './mutations.ts';
import type { CallArguments } from './sql.ts';
import { ISOLATION_LEVELS, type IsolationLevel } from '../request-context.ts';
import type { FunctionTransaction } from './route-context.ts';

/** PostgREST's db-hoisted-tx-settings default. */
export const DEFAULT_HOISTED_SETTINGS: readonly string[] = Object.freeze([
  'statement_timeout',
  'plan_filter.statement_cost_limit',
  'default_transaction_isolation',
]);

/**
 * What a function's own settings do to the transaction that calls it, as PostgREST does: the ones
 * named in db-hoisted-tx-settings are set transaction-locally before the call (so a
 * `statement_timeout` governs the whole statement, not only the function's body), and its
 * `default_transaction_isolation`, hoisted or not, is the isolation level the transaction begins with.
 * And its volatility sets the access mode: STABLE and IMMUTABLE run read-only, also by POST.
 */
export function functionTransaction(fn: RpcFunction, hoisted: readonly string[]): FunctionTransaction {
  const isolation = fn.settings.find(([name]) => name === 'default_transaction_isolation')?.[1];
  return {
    settings: fn.settings.filter(([name]) => hoisted.includes(name)),
    isolation: ISOLATION_LEVELS.find((level) => level === isolation) as IsolationLevel | undefined,
    // PostgREST's access mode: a STABLE or IMMUTABLE function runs read-only whatever the method.
    ...(fn.volatility === 'volatile' ? {} : { readOnly: true as const }),
  };
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
    return (
      [...keys].every((key) => names.has(key)) &&
      fn.arguments.every((argument) => argument.hasDefault || keys.has(argument.name))
    );
  });
  const unnamedType: Record<string, string[]> = {
    json: ['json', 'jsonb'],
    text: ['text'],
    xml: ['xml'],
    octet: ['bytea'],
  };
  const fallbacks = overloads.filter(
    (fn) =>
      isPost &&
      fn.arguments.length === 1 &&
      fn.arguments[0]?.name === '' &&
      (unnamedType[media] ?? []).includes(fn.arguments[0]?.type ?? ''),
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
  return {
    schema: fn.schema,
    name: fn.name,
    arguments: fn.arguments.map((argument) => ({ name: argument.name, type: argument.type })),
  };
}

export function callArguments(
  fn: RpcFunction,
  fromQuery: [string, string][] | undefined,
  payload: RpcPayload | undefined,
): CallArguments {
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

/** A function's result columns a read needs: the embeds' and, at the top level, filtered and ordered ones. */
export function columnsForCall(plan: ReadNode, params: QueryParams): string[] {
  const names = columnsForEmbeds(plan, []);
  if (names.includes('*')) return names;
  const used = new Set(names);
  const addTree = (tree: LogicTree) => {
    if (tree.kind === 'filter') used.add(tree.filter.field.name);
    else tree.children.forEach(addTree);
  };
  params.filters.filter((entry) => entry.path.length === 0).forEach((entry) => used.add(entry.filter.field.name));
  params.logic.filter((entry) => entry.path.length === 0).forEach((entry) => addTree(entry.tree));
  params.order
    .filter((entry) => entry.path.length === 0)
    .forEach((entry) => entry.terms.forEach((term) => term.kind === 'field' && used.add(term.field.name)));
  return [...used].sort();
}

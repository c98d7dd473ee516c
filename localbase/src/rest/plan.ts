// The read plan: a tree of nodes, one per resource in the request (the top-level table, view,
// mutation result or function result, and each embedded resource), each with its select list,
// filters, order, range and the relationship that joins it to its parent. Built in PostgREST's
// stages and order (Plan.hs), so the same requests fail with the same errors first.
import type { CatalogSnapshot } from './catalog.ts';
import {
  aggregatesNotAllowed,
  ambiguousRelationship,
  noRelationship,
  notEmbedded,
  notImplemented,
  relatedOrderNotToOne,
} from './errors.ts';
import type {
  AggregateName,
  EmbedPath,
  Field,
  Filter,
  JoinType,
  LogicTree,
  OrderDirection,
  OrderNulls,
  OrderTerm,
  QueryParams,
  RangeParam,
  SelectItem,
} from './query-types.ts';
import { isToOne, relationshipKey, type QualifiedName, type Relationship } from './relationships.ts';

export interface SelectColumn {
  field: Field;
  cast: string | undefined;
  alias: string | undefined;
  aggregate: AggregateName | undefined;
  /** The cast of the aggregate's result (`amount.sum()::int`). */
  aggregateCast: string | undefined;
}

export type ResolvedLogic =
  | { kind: 'filter'; filter: Filter }
  | { kind: 'null-embed'; negate: boolean; aggregateAlias: string }
  | { kind: 'logic'; negate: boolean; operator: 'and' | 'or'; children: ResolvedLogic[] };

export type ResolvedOrder =
  | {
      kind: 'field';
      field: Field;
      direction: OrderDirection | undefined;
      nulls: OrderNulls | undefined;
      qualifier?: string;
    }
  | {
      kind: 'relation';
      relation: string;
      field: Field;
      direction: OrderDirection | undefined;
      nulls: OrderNulls | undefined;
    };

export interface JoinCondition {
  /** [qualifier SQL, column] pairs: left = right. */
  left: [string, string];
  right: [string, string];
}

export type RelSelect =
  | { kind: 'embed'; name: string; aggregateAlias: string; mode: 'object' | 'array'; empty: boolean }
  | { kind: 'spread'; aggregateAlias: string; columns: SpreadColumn[] };

/**
 * A column a spread lifts into its parent, by its name in the spread's subquery. An aggregate
 * written inside a to-one spread is applied in the parent (PostgREST hoists it there), so that the
 * parent's other columns group it.
 */
export interface SpreadColumn {
  name: string;
  aggregate: AggregateName | undefined;
  aggregateCast: string | undefined;
  alias: string | undefined;
}

export type SpreadKind =
  | { kind: 'to-one' }
  | {
      kind: 'to-many';
      extraSelects: { qualifier: string | undefined; field: Field; alias: string }[];
      order: ResolvedOrder[];
    };

/** Where a node reads its rows from. */
export type NodeSource =
  | { kind: 'table'; table: QualifiedName }
  /** The CTE `pgrst_source` (a mutation's RETURNING rows, a function's result), aliased. */
  | { kind: 'source' };

export interface ReadNode {
  source: NodeSource;
  /** The relation the node stands for (table, or the table a function returns rows of). */
  relation: QualifiedName;
  fromAlias: string | undefined;
  select: SelectColumn[];
  where: ResolvedLogic[];
  order: ResolvedOrder[];
  range: RangeParam;
  relName: string;
  relAlias: string | undefined;
  relHint: string | undefined;
  joinType: JoinType | undefined;
  spreadRequested: boolean;
  spread: SpreadKind | undefined;
  relToParent: Relationship | undefined;
  /** A computed relationship's argument: the parent row, by its alias or table name. */
  computedArgument: string | undefined;
  joinConditions: JoinCondition[];
  aggregateAlias: string;
  relSelect: RelSelect[];
  depth: number;
  children: ReadNode[];
}

export const SOURCE_CTE = 'pgrst_source';

export function quoteIdent(name: string): string {
  // PostgreSQL identifiers cannot hold NUL; PostgREST cuts the name there too.
  const clean = name.includes('\0') ? name.slice(0, name.indexOf('\0')) : name;
  return `"${clean.replace(/"/g, '""')}"`;
}

export function qualified(name: QualifiedName): string {
  return `${quoteIdent(name.schema)}.${quoteIdent(name.name)}`;
}

/** How a node's columns are qualified in its query: its alias, or the table's full name. */
export function nodeQualifier(node: ReadNode): string {
  if (node.fromAlias !== undefined) return quoteIdent(node.fromAlias);
  if (node.relToParent?.kind === 'computed') return quoteIdent(node.relToParent.function.name);
  return qualified(node.relation);
}

const ALL_ROWS: RangeParam = { offset: 0, limit: undefined };

function newNode(relation: QualifiedName, relName: string, depth: number): ReadNode {
  return {
    source: { kind: 'table', table: relation },
    relation,
    fromAlias: undefined,
    select: [],
    where: [],
    order: [],
    range: ALL_ROWS,
    relName,
    relAlias: undefined,
    relHint: undefined,
    joinType: undefined,
    spreadRequested: false,
    spread: undefined,
    relToParent: undefined,
    computedArgument: undefined,
    joinConditions: [],
    aggregateAlias: '',
    relSelect: [],
    depth,
    children: [],
  };
}

function buildTree(items: SelectItem[], node: ReadNode, schema: string): ReadNode {
  for (const item of items) {
    if (item.kind === 'field') {
      node.select.push({
        field: item.field,
        cast: item.cast,
        alias: item.alias,
        aggregate: item.aggregate,
        aggregateCast: item.aggregateCast,
      });
      continue;
    }
    const child = newNode({ schema, name: item.name }, item.name, node.depth + 1);
    child.relAlias = item.kind === 'relation' ? item.alias : undefined;
    child.relHint = item.hint;
    child.joinType = item.joinType;
    child.spreadRequested = item.kind === 'spread';
    node.children.push(buildTree(item.children, child, schema));
  }
  return node;
}

/** The node an embed path names, by resource name or alias; PGRST108 when it is not embedded. */
function nodeAt(root: ReadNode, path: EmbedPath): ReadNode {
  let node = root;
  for (const name of path) {
    const next = node.children.find((child) => child.relName === name || child.relAlias === name);
    if (!next) throw notEmbedded(name);
    node = next;
  }
  return node;
}

export function resolveLogic(tree: LogicTree): ResolvedLogic {
  if (tree.kind === 'filter') return { kind: 'filter', filter: tree.filter };
  return { kind: 'logic', negate: tree.negate, operator: tree.operator, children: tree.children.map(resolveLogic) };
}

export type PlanAction = 'read' | 'mutate' | 'call';

export interface PlanInput {
  snapshot: CatalogSnapshot;
  schema: string;
  /** The top-level relation: a table, or what a function returns rows of (or its own name). */
  relation: QualifiedName;
  params: QueryParams;
  action: PlanAction;
  /** The Range header's range, already merged with `limit`/`offset` for the top level. */
  topRange: RangeParam;
  maxRows: number | undefined;
  /** PostgREST's db-aggregates-enabled: off refuses any aggregate with PGRST123. */
  aggregates: boolean;
}

export function buildReadPlan(input: PlanInput): ReadNode {
  const { params, action } = input;
  const root = buildTree(params.select, newNode(input.relation, input.relation.name, 0), input.schema);
  // Filters: on a mutation, top-level filters belong to the mutation itself, not to the read.
  for (const { path, filter } of params.filters) {
    if (action === 'mutate' && path.length === 0) continue;
    nodeAt(root, path).where.unshift({ kind: 'filter', filter });
  }
  for (const { path, terms } of params.order) nodeAt(root, path).order = terms.map(resolveOrder);
  if (action !== 'mutate') {
    for (const [key, range] of params.ranges) {
      if (key === '') continue;
      nodeAt(root, key.split('.')).range = range;
    }
    root.range = input.topRange;
  }
  for (const { path, tree } of params.logic) {
    if (action === 'mutate' && path.length === 0) continue;
    nodeAt(root, path).where.unshift(resolveLogic(tree));
  }
  if (action !== 'read') {
    root.source = { kind: 'source' };
    root.fromAlias = input.relation.name;
  }
  for (const child of root.children) addRelationships(input, child, root);
  addAliases(root);
  addRelatedOrders(root);
  addNullEmbedFilters(root);
  addRelSelects(root);
  if (!input.aggregates) refuseAggregates(root);
  hoistSpreadAggregates(root);
  addToManyOrderSelects(root);
  if (action !== 'mutate' && input.maxRows !== undefined) restrictRanges(root, input.maxRows);
  return root;
}

function resolveOrder(term: OrderTerm): ResolvedOrder {
  return { ...term };
}

// -------------------------------------------------------------------------------------------------
// Relationships

function addRelationships(input: PlanInput, node: ReadNode, parent: ReadNode): void {
  const origin = node.depth === 1 ? (parent.fromAlias ?? parent.relation.name) : parent.relation.name;
  const relationship = findRelationship(input.snapshot, input.schema, origin, node.relName, node.relHint);
  node.relToParent = relationship;
  node.relation = relationship.foreignTable;
  if (relationship.kind === 'computed') node.computedArgument = parent.fromAlias ?? relationship.table.name;
  node.source = { kind: 'table', table: node.relation };
  node.aggregateAlias = `${relationship.table.name}_${node.relAlias ?? node.relName}_${node.depth}`;
  // As PostgREST: a many-to-many target is joined with its junction unaliased, every other
  // target as `<table>_<depth>`.
  const manyToMany = relationship.kind === 'fk' && relationship.cardinality.kind === 'm2m';
  node.fromAlias = manyToMany ? undefined : `${relationship.foreignTable.name}_${node.depth}`;
  if (node.spreadRequested) {
    node.spread = isToOne(relationship) ? { kind: 'to-one' } : { kind: 'to-many', extraSelects: [], order: [] };
  }
  node.joinConditions = joinConditions(relationship, node, parent);
  for (const child of node.children) addRelationships(input, child, node);
}

function joinConditions(relationship: Relationship, node: ReadNode, parent: ReadNode): JoinCondition[] {
  if (relationship.kind === 'computed') return [];
  const child = node.fromAlias !== undefined ? quoteIdent(node.fromAlias) : qualified(relationship.foreignTable);
  const parentQualifier = parent.fromAlias !== undefined ? quoteIdent(parent.fromAlias) : qualified(relationship.table);
  const cardinality = relationship.cardinality;
  if (cardinality.kind === 'm2m') {
    const junction = qualified(cardinality.junction.table);
    return [
      ...cardinality.junction.targetColumns.map(([target, junctionColumn]): JoinCondition => ({
        left: [junction, junctionColumn],
        right: [child, target],
      })),
      ...cardinality.junction.sourceColumns.map(([origin, junctionColumn]): JoinCondition => ({
        left: [junction, junctionColumn],
        right: [parentQualifier, origin],
      })),
    ];
  }
  return cardinality.columns.map(([origin, target]) => ({ left: [child, target], right: [parentQualifier, origin] }));
}

function matchesSingleColumn(relationship: Relationship, name: string, side: 0 | 1): boolean {
  if (relationship.kind !== 'fk' || relationship.cardinality.kind === 'm2m') return false;
  const columns = relationship.cardinality.columns;
  return columns.length === 1 && columns[0]?.[side] === name;
}

function constraintOf(relationship: Relationship): string | undefined {
  if (relationship.kind !== 'fk' || relationship.cardinality.kind === 'm2m') return undefined;
  return relationship.cardinality.constraint;
}

/**
 * PostgREST's findRel: the target may name the table, a foreign key constraint or a foreign key
 * column; a hint narrows by constraint, column or junction table. Self-relationships read the
 * target as the table (one-to-many) or the column (many-to-one).
 */
export function findRelationship(
  snapshot: CatalogSnapshot,
  schema: string,
  origin: string,
  target: string,
  hint: string | undefined,
): Relationship {
  const all = snapshot.relationships.get(relationshipKey({ schema, name: origin }, schema)) ?? [];
  const matches = all.filter((r) => {
    if (r.kind === 'computed') return target === r.function.name;
    const kind = r.cardinality.kind;
    if (r.isSelf) {
      if (hint === undefined) {
        return (
          (target === r.foreignTable.name && kind === 'o2m') || (matchesSingleColumn(r, target, 0) && kind === 'm2o')
        );
      }
      return target === r.foreignTable.name && kind === 'o2m' && matchesSingleColumn(r, hint, 1);
    }
    if (hint === undefined) {
      return (
        target === r.foreignTable.name ||
        (constraintOf(r) === target && !r.foreignTableIsView) ||
        (matchesSingleColumn(r, target, 0) && !r.foreignTableIsView)
      );
    }
    return (
      target === r.foreignTable.name &&
      (constraintOf(r) === hint ||
        matchesSingleColumn(r, hint, 0) ||
        matchesSingleColumn(r, hint, 1) ||
        (r.cardinality.kind === 'm2m' && r.cardinality.junction.table.name === hint))
    );
  });
  if (matches.length === 1) return matches[0] as Relationship;
  if (matches.length === 0) throw noRelationship(snapshot, schema, origin, target, hint);
  throw ambiguousRelationship(origin, target, matches);
}

// -------------------------------------------------------------------------------------------------
// Later stages

/** A select term with a JSON path and no alias is named after its last key. */
function addAliases(node: ReadNode): void {
  node.select = node.select.map((column) => {
    if (column.alias !== undefined || column.aggregate !== undefined || column.field.jsonPath.length === 0)
      return column;
    const steps = column.field.jsonPath;
    const last = steps.at(-1)?.operand;
    if (last?.kind === 'key') return { ...column, alias: last.value };
    const lastKey = [...steps].reverse().find((step) => step.operand.kind === 'key')?.operand.value;
    return { ...column, alias: lastKey ?? column.field.name };
  });
  node.children.forEach(addAliases);
}

function addRelatedOrders(node: ReadNode): void {
  node.order = node.order.map((term) => {
    if (term.kind !== 'relation') return term;
    const found = node.children.find((child) => term.relation === (child.relAlias ?? child.relName));
    if (!found) throw notEmbedded(term.relation);
    if (!found.relToParent || !isToOne(found.relToParent))
      throw relatedOrderNotToOne(node.relation.name, found.relAlias ?? found.relName);
    return { ...term, relation: found.aggregateAlias };
  });
  node.children.forEach(addRelatedOrders);
}

function addNullEmbedFilters(node: ReadNode): void {
  const convert = (logic: ResolvedLogic): ResolvedLogic => {
    if (logic.kind === 'logic') return { ...logic, children: logic.children.map(convert) };
    if (logic.kind !== 'filter') return logic;
    const { field, expr } = logic.filter;
    if (field.jsonPath.length > 0) return logic;
    const embedded = node.children.find((child) => field.name === (child.relAlias ?? child.relName));
    if (embedded && expr.operation.kind === 'is' && expr.operation.value === 'null') {
      return { kind: 'null-embed', negate: expr.negate, aggregateAlias: embedded.aggregateAlias };
    }
    return logic;
  };
  node.where = node.where.map(convert);
  node.children.forEach(addNullEmbedFilters);
}

function addRelSelects(node: ReadNode): void {
  for (const child of node.children) addRelSelects(child);
  node.relSelect = node.children.map((child): RelSelect => {
    if (child.spread) return { kind: 'spread', aggregateAlias: child.aggregateAlias, columns: spreadColumns(child) };
    const toOne = child.relToParent ? isToOne(child.relToParent) : false;
    return {
      kind: 'embed',
      name: child.relAlias ?? child.relName,
      aggregateAlias: child.aggregateAlias,
      mode: toOne ? 'object' : 'array',
      empty: isEmptyEmbed(child),
    };
  });
}

function isEmptyEmbed(node: ReadNode): boolean {
  return node.select.length === 0 && node.children.every(isEmptyEmbed);
}

/** The output names a spread lifts into its parent: its own columns, then its spreads' and embeds'. */
function spreadColumns(node: ReadNode): SpreadColumn[] {
  const plain = (name: string): SpreadColumn => ({
    name,
    aggregate: undefined,
    aggregateCast: undefined,
    alias: undefined,
  });
  const own = node.select.map((column) => plain(column.alias ?? column.field.name));
  const nested = node.relSelect.flatMap((rel) =>
    rel.kind === 'embed' ? [plain(rel.name)] : rel.columns.map((column) => plain(column.alias ?? column.name)),
  );
  return [...own, ...nested];
}

function refuseAggregates(node: ReadNode): void {
  if (node.select.some((column) => column.aggregate !== undefined)) throw aggregatesNotAllowed();
  node.children.forEach(refuseAggregates);
}

interface HoistedAggregate {
  aggregateAlias: string;
  name: string;
  aggregate: AggregateName;
  aggregateCast: string | undefined;
  alias: string | undefined;
}

/**
 * PostgREST's hoistSpreadAggFunctions: an aggregate inside a to-one spread (`...films(budget.sum())`)
 * is taken out of the spread's subquery and applied to the lifted column in the parent, through
 * nested to-one spreads up to the first node that is not one. Returns what this node hands up.
 */
function hoistSpreadAggregates(node: ReadNode): HoistedAggregate[] {
  const fromChildren = node.children.flatMap(hoistSpreadAggregates);
  const toOneSpread = node.spread?.kind === 'to-one';
  if (!toOneSpread) {
    if (fromChildren.length > 0) {
      node.relSelect = node.relSelect.map((rel) => {
        if (rel.kind !== 'spread') return rel;
        const columns = rel.columns.map((column) => {
          const hoisted = fromChildren.find(
            (candidate) => candidate.aggregateAlias === rel.aggregateAlias && candidate.name === column.name,
          );
          return hoisted
            ? { ...column, aggregate: hoisted.aggregate, aggregateCast: hoisted.aggregateCast, alias: hoisted.alias }
            : column;
        });
        return { ...rel, columns };
      });
    }
    return [];
  }
  const own: HoistedAggregate[] = [];
  node.select = node.select.map((column) => {
    if (column.aggregate === undefined) return column;
    own.push({
      aggregateAlias: node.aggregateAlias,
      name: column.alias ?? column.field.name,
      aggregate: column.aggregate,
      aggregateCast: column.aggregateCast,
      alias: column.alias,
    });
    return { ...column, aggregate: undefined, aggregateCast: undefined };
  });
  return [...own, ...fromChildren.map((hoisted) => ({ ...hoisted, aggregateAlias: node.aggregateAlias }))];
}

/** Whether a node's query aggregates: its own columns, or columns lifted from a spread. */
export function isAggregated(node: ReadNode): boolean {
  return (
    node.select.some((column) => column.aggregate !== undefined) ||
    node.relSelect.some((rel) => rel.kind === 'spread' && rel.columns.some((column) => column.aggregate !== undefined))
  );
}

/** A to-many spread orders its arrays: the order moves into the aggregation, over selected keys. */
function addToManyOrderSelects(node: ReadNode): void {
  if (node.spread?.kind === 'to-many') {
    if (isAggregated(node))
      throw notImplemented('Aggregates are not implemented for one-to-many or many-to-many spreads.');
    const extraSelects: { qualifier: string | undefined; field: Field; alias: string }[] = [];
    const order: ResolvedOrder[] = [];
    node.order.forEach((term, index) => {
      const name = term.field.name;
      const alias = `${node.aggregateAlias}_${name}_${index + 1}`;
      extraSelects.push({ qualifier: term.kind === 'relation' ? term.relation : undefined, field: term.field, alias });
      order.push({
        kind: 'field',
        field: { name: alias, jsonPath: [] },
        direction: term.direction,
        nulls: term.nulls,
        qualifier: node.aggregateAlias,
      });
    });
    node.order = [];
    node.spread = { kind: 'to-many', extraSelects, order };
  }
  node.children.forEach(addToManyOrderSelects);
}

function restrictRanges(node: ReadNode, maxRows: number): void {
  const { offset, limit } = node.range;
  if (limit !== 0) node.range = { offset, limit: limit === undefined ? maxRows : Math.min(limit, maxRows) };
  node.children.forEach((child) => restrictRanges(child, maxRows));
}

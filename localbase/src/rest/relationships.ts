// Relationships between the exposed tables, detected as PostgREST detects them: many-to-one and
// one-to-one from foreign keys (one-to-one when the key columns are also a primary key or unique),
// the same carried over to the views that show a key's columns (view-relationships.ts),
// their inverses (one-to-many), many-to-many through a junction table whose primary key holds
// both foreign keys, and computed relationships (a function taking one table's row and returning
// another table's rows). The order of each list is PostgREST's, because ambiguity errors list the
// candidates in that order.
import type pg from 'pg';
import { z } from 'zod';
import type { Table } from './catalog.ts';
import type {
  Cardinality,
  ColumnPairs,
  ComputedRelationship,
  ForeignKeyRelationship,
  QualifiedName,
  Relationship,
} from './relationship-types.ts';
import { loadViewExposures, viewPrimaryKey, viewRelationships } from './view-relationships.ts';

export type {
  Cardinality,
  ColumnPairs,
  ComputedRelationship,
  ForeignKeyRelationship,
  Junction,
  QualifiedName,
  Relationship,
} from './relationship-types.ts';

/** Relationships by origin table and the schema of their targets: `schema.table\0targetSchema`. */
export type RelationshipIndex = Map<string, Relationship[]>;

export function relationshipKey(origin: QualifiedName, targetSchema: string): string {
  return `${origin.schema}.${origin.name}\0${targetSchema}`;
}

export function isToOne(relationship: Relationship): boolean {
  if (relationship.kind === 'computed') return relationship.toOne;
  return relationship.cardinality.kind === 'm2o' || relationship.cardinality.kind === 'o2o';
}

const foreignKeyRow = z.object({
  table_schema: z.string(),
  table_name: z.string(),
  foreign_table_schema: z.string(),
  foreign_table_name: z.string(),
  is_self: z.boolean(),
  constraint_name: z.string(),
  columns: z.array(z.string()),
  foreign_columns: z.array(z.string()),
  one_to_one: z.boolean(),
});

const computedRow = z.object({
  schema: z.string(),
  name: z.string(),
  rel_table_schema: z.string(),
  rel_table_name: z.string(),
  rel_ftable_schema: z.string(),
  rel_ftable_name: z.string(),
  single_row: z.boolean(),
  is_self: z.boolean(),
});

// PostgREST's query: every foreign key (not the copies on partitions), one-to-one when its columns
// are exactly the columns of a primary key or unique constraint of the same table.
const FOREIGN_KEYS_SQL = `
  with pks_uniques_cols as (
    select conrelid, array_agg(key order by key) as cols
    from pg_constraint, lateral unnest(conkey) as _(key)
    where contype in ('p', 'u') and connamespace <> 'pg_catalog'::regnamespace
    group by oid, conrelid
  )
  select ns1.nspname as table_schema, tab.relname as table_name,
         ns2.nspname as foreign_table_schema, other.relname as foreign_table_name,
         traint.conrelid = traint.confrelid as is_self,
         traint.conname as constraint_name,
         column_info.names as columns, column_info.foreign_names as foreign_columns,
         (column_info.cols in (select cols from pks_uniques_cols where conrelid = traint.conrelid)) as one_to_one
  from pg_constraint traint
  join lateral (
    select array_agg(cols.attname::text order by ord) as names,
           array_agg(refs.attname::text order by ord) as foreign_names,
           array_agg(cols.attnum order by cols.attnum) as cols
    from unnest(traint.conkey, traint.confkey) with ordinality as _(col, ref, ord)
    join pg_attribute cols on cols.attrelid = traint.conrelid and cols.attnum = col
    join pg_attribute refs on refs.attrelid = traint.confrelid and refs.attnum = ref
  ) as column_info on true
  join pg_namespace ns1 on ns1.oid = traint.connamespace
  join pg_class tab on tab.oid = traint.conrelid
  join pg_class other on other.oid = traint.confrelid
  join pg_namespace ns2 on ns2.oid = other.relnamespace
  where traint.contype = 'f' and traint.conparentid = 0
  order by traint.conrelid, traint.conname`;

// Functions of one argument of a table's row type returning rows of a table type.
const COMPUTED_SQL = `
  with all_relations as (
    select reltype from pg_class where relkind in ('v', 'r', 'm', 'f', 'p')
  ), computed_rels as (
    select n.nspname::text as schema, p.proname::text as name,
           arg_schema.nspname::text as rel_table_schema, arg_name.typname::text as rel_table_name,
           ret_schema.nspname::text as rel_ftable_schema, ret_name.typname::text as rel_ftable_name,
           not p.proretset or p.prorows = 1 as single_row
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    join pg_type arg_name on arg_name.oid = p.proargtypes[0]
    join pg_namespace arg_schema on arg_schema.oid = arg_name.typnamespace
    join pg_type ret_name on ret_name.oid = p.prorettype
    join pg_namespace ret_schema on ret_schema.oid = ret_name.typnamespace
    where p.pronargs = 1
      and p.proargtypes[0] in (select reltype from all_relations)
      and p.prorettype in (select reltype from all_relations)
  )
  select *, row(rel_table_schema, rel_table_name) = row(rel_ftable_schema, rel_ftable_name) as is_self
  from computed_rels`;

function zipPairs(left: string[], right: string[]): ColumnPairs {
  return left.map((name, index) => [name, right[index] ?? '']);
}

const swap = (pairs: ColumnPairs): ColumnPairs => pairs.map(([a, b]) => [b, a]);

function sameName(a: QualifiedName, b: QualifiedName): boolean {
  return a.schema === b.schema && a.name === b.name;
}

export async function loadRelationships(
  pool: pg.Pool,
  schemas: readonly string[],
  tables: Map<string, Table>,
): Promise<RelationshipIndex> {
  const [keys, computed, exposures] = await Promise.all([
    pool.query(FOREIGN_KEYS_SQL),
    pool.query(COMPUTED_SQL),
    loadViewExposures(pool, schemas),
  ]);
  const isView = (name: QualifiedName) => tables.get(`${name.schema}.${name.name}`)?.isView ?? false;
  const detected: ForeignKeyRelationship[] = keys.rows.map((raw) => {
    const row = foreignKeyRow.parse(raw);
    const columns = zipPairs(row.columns, row.foreign_columns);
    const table = { schema: row.table_schema, name: row.table_name };
    const foreignTable = { schema: row.foreign_table_schema, name: row.foreign_table_name };
    return {
      kind: 'fk',
      table,
      foreignTable,
      isSelf: row.is_self,
      cardinality: row.one_to_one
        ? { kind: 'o2o', constraint: row.constraint_name, columns, isParent: false }
        : { kind: 'm2o', constraint: row.constraint_name, columns },
      tableIsView: false,
      foreignTableIsView: false,
    };
  });
  // PostgREST's order: the keys carried over to views first, then junctions and inverses over both.
  const direct = [...detected, ...viewRelationships(detected, exposures)];
  const viewKeys = new Map<string, string[]>();
  const keyOf = (name: QualifiedName): string[] => {
    const key = `${name.schema}.${name.name}`;
    const table = tables.get(key);
    if (!table?.isView) return table?.primaryKey ?? [];
    let viewKey = viewKeys.get(key);
    if (viewKey === undefined) {
      viewKey = viewPrimaryKey(name, exposures, tables.values());
      viewKeys.set(key, viewKey);
    }
    return viewKey;
  };
  const withJunctions = [...direct, ...manyToMany(direct, keyOf)];
  const all: Relationship[] = [...withJunctions, ...inverses(direct)];
  const computedRelationships: ComputedRelationship[] = computed.rows.map((raw) => {
    const row = computedRow.parse(raw);
    return {
      kind: 'computed',
      function: { schema: row.schema, name: row.name },
      table: { schema: row.rel_table_schema, name: row.rel_table_name },
      foreignTable: { schema: row.rel_ftable_schema, name: row.rel_ftable_name },
      toOne: row.single_row,
      isSelf: row.is_self,
    };
  });
  for (const relationship of all) {
    if (relationship.kind === 'fk') {
      relationship.tableIsView = isView(relationship.table);
      relationship.foreignTableIsView = isView(relationship.foreignTable);
    }
  }
  return indexRelationships(overrideWithComputed(all, computedRelationships), schemas);
}

/** One-to-many for each many-to-one, and the other side of each one-to-one. */
function inverses(relationships: ForeignKeyRelationship[]): ForeignKeyRelationship[] {
  const oneToMany: ForeignKeyRelationship[] = [];
  const otherSides: ForeignKeyRelationship[] = [];
  for (const r of relationships) {
    const c = r.cardinality;
    const base = {
      kind: 'fk' as const,
      table: r.foreignTable,
      foreignTable: r.table,
      isSelf: r.isSelf,
      tableIsView: false,
      foreignTableIsView: false,
    };
    if (c.kind === 'm2o')
      oneToMany.push({ ...base, cardinality: { kind: 'o2m', constraint: c.constraint, columns: swap(c.columns) } });
    if (c.kind === 'o2o')
      otherSides.push({
        ...base,
        cardinality: { kind: 'o2o', constraint: c.constraint, columns: swap(c.columns), isParent: !c.isParent },
      });
  }
  return [...oneToMany, ...otherSides];
}

/**
 * A table (or a view with a primary key, see view-relationships.ts) with many-to-one keys to two
 * tables, both inside its primary key, joins them.
 */
function manyToMany(
  relationships: ForeignKeyRelationship[],
  primaryKeyOf: (table: QualifiedName) => string[],
): ForeignKeyRelationship[] {
  const found: ForeignKeyRelationship[] = [];
  for (const first of relationships) {
    if (first.cardinality.kind !== 'm2o') continue;
    for (const second of relationships) {
      if (second.cardinality.kind !== 'm2o') continue;
      if (!sameName(first.table, second.table) || first.cardinality.constraint === second.cardinality.constraint)
        continue;
      const primaryKey = new Set(primaryKeyOf(first.table));
      const junctionColumns = [...first.cardinality.columns, ...second.cardinality.columns].map(([column]) => column);
      if (!junctionColumns.every((column) => primaryKey.has(column))) continue;
      found.push({
        kind: 'fk',
        table: first.foreignTable,
        foreignTable: second.foreignTable,
        isSelf: sameName(first.foreignTable, second.foreignTable),
        cardinality: {
          kind: 'm2m',
          junction: {
            table: first.table,
            constraint1: first.cardinality.constraint,
            constraint2: second.cardinality.constraint,
            sourceColumns: swap(first.cardinality.columns),
            targetColumns: swap(second.cardinality.columns),
          },
        },
        tableIsView: false,
        foreignTableIsView: false,
      });
    }
  }
  return found;
}

/**
 * A computed relationship named like a detected target replaces the detected ones between the
 * same pair (PostgREST keys both by (table, target or function name)).
 */
function overrideWithComputed(detected: Relationship[], computed: ComputedRelationship[]): Relationship[] {
  const computedKeys = new Set(
    computed.map((r) => `${r.table.schema}.${r.table.name}\0${r.function.schema}.${r.function.name}`),
  );
  const kept = detected.filter(
    (r) => !computedKeys.has(`${r.table.schema}.${r.table.name}\0${r.foreignTable.schema}.${r.foreignTable.name}`),
  );
  return [...kept, ...computed];
}

function indexRelationships(relationships: Relationship[], schemas: readonly string[]): RelationshipIndex {
  const exposed = new Set(schemas);
  const index: RelationshipIndex = new Map();
  for (const r of relationships) {
    if (!exposed.has(r.table.schema) || !exposed.has(r.foreignTable.schema)) continue;
    if (r.kind === 'fk' && r.cardinality.kind === 'm2m' && !exposed.has(r.cardinality.junction.table.schema)) continue;
    const key = relationshipKey(r.table, r.foreignTable.schema);
    index.set(key, [...(index.get(key) ?? []), r]);
  }
  for (const list of index.values()) list.sort(compareRelationships);
  return index;
}

// PostgREST sorts with Haskell's derived Ord: constructor order first, then field by field.
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareNames(a: QualifiedName, b: QualifiedName): number {
  return compareText(a.schema, b.schema) || compareText(a.name, b.name);
}

function compareBool(a: boolean, b: boolean): number {
  return Number(a) - Number(b);
}

function comparePairs(a: ColumnPairs, b: ColumnPairs): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [a1, a2] = a[i] as [string, string];
    const [b1, b2] = b[i] as [string, string];
    const order = compareText(a1, b1) || compareText(a2, b2);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

const CARDINALITY_ORDER = { o2m: 0, m2o: 1, o2o: 2, m2m: 3 } as const;

function compareCardinality(a: Cardinality, b: Cardinality): number {
  const byKind = CARDINALITY_ORDER[a.kind] - CARDINALITY_ORDER[b.kind];
  if (byKind !== 0) return byKind;
  if (a.kind === 'm2m' && b.kind === 'm2m') {
    const x = a.junction;
    const y = b.junction;
    return (
      compareNames(x.table, y.table) ||
      compareText(x.constraint1, y.constraint1) ||
      compareText(x.constraint2, y.constraint2) ||
      comparePairs(x.sourceColumns, y.sourceColumns) ||
      comparePairs(x.targetColumns, y.targetColumns)
    );
  }
  if (a.kind !== 'm2m' && b.kind !== 'm2m') {
    const order = compareText(a.constraint, b.constraint) || comparePairs(a.columns, b.columns);
    if (order !== 0 || a.kind !== 'o2o' || b.kind !== 'o2o') return order;
    return compareBool(a.isParent, b.isParent);
  }
  return 0;
}

export function compareRelationships(a: Relationship, b: Relationship): number {
  if (a.kind !== b.kind) return a.kind === 'fk' ? -1 : 1;
  if (a.kind === 'computed' && b.kind === 'computed') {
    return (
      compareNames(a.function, b.function) ||
      compareNames(a.table, b.table) ||
      compareNames(a.foreignTable, b.foreignTable) ||
      compareBool(a.toOne, b.toOne) ||
      compareBool(a.isSelf, b.isSelf)
    );
  }
  const x = a as ForeignKeyRelationship;
  const y = b as ForeignKeyRelationship;
  return (
    compareNames(x.table, y.table) ||
    compareNames(x.foreignTable, y.foreignTable) ||
    compareBool(x.isSelf, y.isSelf) ||
    compareCardinality(x.cardinality, y.cardinality) ||
    compareBool(x.tableIsView, y.tableIsView) ||
    compareBool(x.foreignTableIsView, y.foreignTableIsView)
  );
}

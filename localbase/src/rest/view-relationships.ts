// Relationships through views, inferred as PostgREST infers them: a view that shows every column of
// a foreign key unchanged (renamed or not, through joins, subqueries or other views) takes part in
// that key's relationship in the table's place. A view over the referencing table points to the
// referenced table, the referencing table points to a view over the referenced one, and a view
// over each side points to the other; the cardinality is the key's. A view showing one key column
// under several names has one relationship per choice of names, which a request then tells apart
// with a hint, as PostgREST's do.
//
// Postgres records, for each column of a view's query, the table column it was taken from
// (`resorigtbl`/`resorigcol` in the view's rewrite rule); node-tree.ts reads them.
import type pg from 'pg';
import { z } from 'zod';
import { viewColumnSources } from './node-tree.ts';
import type { ColumnPairs, ForeignKeyRelationship, QualifiedName } from './relationship-types.ts';

// The views and materialized views of the exposed schemas, and every view they are built on (in
// any schema), with their rule's text. A view elsewhere is never an end of a relationship.
const VIEW_RULES_SQL = `
  with recursive wanted(oid) as (
    select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('v', 'm') and n.nspname = any($1)
    union
    select used.oid from wanted w
    join pg_rewrite r on r.ev_class = w.oid and r.rulename = '_RETURN'
    join pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid and d.refclassid = 'pg_class'::regclass
    join pg_class used on used.oid = d.refobjid and used.relkind in ('v', 'm')
  )
  select w.oid::int8 as oid, r.ev_action::text as ev_action
  from wanted w
  join pg_rewrite r on r.ev_class = w.oid and r.rulename = '_RETURN'`;

const COLUMN_NAMES_SQL = `
  select c.oid::int8 as oid, n.nspname as schema, c.relname as name, a.attnum::int as attnum, a.attname::text as column
  from pg_attribute a
  join pg_class c on c.oid = a.attrelid
  join pg_namespace n on n.oid = c.relnamespace
  where a.attrelid = any($1::oid[]) and a.attnum > 0 and not a.attisdropped`;

const viewRuleRow = z.object({ oid: z.coerce.number(), ev_action: z.string() });
const columnNameRow = z.object({
  oid: z.coerce.number(),
  schema: z.string(),
  name: z.string(),
  attnum: z.number(),
  column: z.string(),
});

interface ColumnRef {
  table: number;
  column: number;
}

/** One view column showing a table column unchanged. */
interface Exposure {
  view: QualifiedName;
  column: string;
}

/** For each table column (`schema.table\0column`), the view columns that show it. */
export type ViewExposures = Map<string, Exposure[]>;

const columnKey = (table: QualifiedName, column: string) => `${table.schema}.${table.name}\0${column}`;

/**
 * Reads the column sources of the exposed schemas' views, follows views over views down to tables,
 * and names them.
 */
export async function loadViewExposures(pool: pg.Pool, schemas: readonly string[]): Promise<ViewExposures> {
  const rules = (await pool.query(VIEW_RULES_SQL, [schemas])).rows.map((raw) => viewRuleRow.parse(raw));
  const sources = new Map<number, Map<number, ColumnRef>>();
  for (const rule of rules) {
    const columns = new Map<number, ColumnRef>();
    for (const source of viewColumnSources(rule.ev_action))
      columns.set(source.viewColumn, { table: source.table, column: source.tableColumn });
    sources.set(rule.oid, columns);
  }
  // A view over a view shows what that view's column shows; a cycle (impossible in Postgres, which
  // refuses it) or a column the inner view computes ends the trace with nothing.
  const baseOf = (view: number, column: number, seen: Set<number>): ColumnRef | undefined => {
    const source = sources.get(view)?.get(column);
    if (source === undefined || !sources.has(source.table)) return source;
    if (seen.has(source.table)) return undefined;
    return baseOf(source.table, source.column, new Set([...seen, source.table]));
  };
  const traced: { view: number; column: number; base: ColumnRef }[] = [];
  for (const [view, columns] of sources) {
    for (const column of columns.keys()) {
      const base = baseOf(view, column, new Set([view]));
      if (base !== undefined) traced.push({ view, column, base });
    }
  }
  if (traced.length === 0) return new Map();
  const oids = [...new Set(traced.flatMap((each) => [each.view, each.base.table]))];
  const names = new Map<number, { table: QualifiedName; columns: Map<number, string> }>();
  for (const raw of (await pool.query(COLUMN_NAMES_SQL, [oids])).rows) {
    const row = columnNameRow.parse(raw);
    let entry = names.get(row.oid);
    if (!entry) {
      entry = { table: { schema: row.schema, name: row.name }, columns: new Map() };
      names.set(row.oid, entry);
    }
    entry.columns.set(row.attnum, row.column);
  }
  const exposures: ViewExposures = new Map();
  for (const { view, column, base } of traced) {
    const viewNames = names.get(view);
    const baseNames = names.get(base.table);
    const viewColumn = viewNames?.columns.get(column);
    const baseColumn = baseNames?.columns.get(base.column);
    if (!viewNames || !baseNames || viewColumn === undefined || baseColumn === undefined) continue;
    const key = columnKey(baseNames.table, baseColumn);
    exposures.set(key, [...(exposures.get(key) ?? []), { view: viewNames.table, column: viewColumn }]);
  }
  return exposures;
}

/**
 * The views showing all of a table's `columns`, each with every way to name them: one list of view
 * column names (in the order of `columns`) per choice.
 */
function viewsShowing(
  exposures: ViewExposures,
  table: QualifiedName,
  columns: string[],
): { view: QualifiedName; names: string[] }[] {
  const perView = new Map<string, { view: QualifiedName; choices: string[][] }>();
  columns.forEach((column, index) => {
    for (const exposure of exposures.get(columnKey(table, column)) ?? []) {
      const key = `${exposure.view.schema}.${exposure.view.name}`;
      let entry = perView.get(key);
      if (!entry) {
        entry = { view: exposure.view, choices: columns.map(() => []) };
        perView.set(key, entry);
      }
      entry.choices[index]?.push(exposure.column);
    }
  });
  const found: { view: QualifiedName; names: string[] }[] = [];
  for (const { view, choices } of perView.values()) {
    if (choices.some((names) => names.length === 0)) continue;
    // Every combination of the names each column goes by.
    let combinations: string[][] = [[]];
    for (const names of choices)
      combinations = combinations.flatMap((prefix) => names.map((name) => [...prefix, name]));
    for (const names of combinations) found.push({ view, names });
  }
  return found;
}

const sameName = (a: QualifiedName, b: QualifiedName) => a.schema === b.schema && a.name === b.name;

/**
 * A view's primary key, as PostgREST infers it: the view columns showing every column of a table's
 * primary key (the first such table, and the first name of a column shown twice), or none. It only
 * lets a view be the junction of a many-to-many; nothing else treats a view as keyed.
 */
export function viewPrimaryKey(
  view: QualifiedName,
  exposures: ViewExposures,
  tables: Iterable<{ schema: string; name: string; primaryKey: readonly string[]; isView: boolean }>,
): string[] {
  for (const table of tables) {
    if (table.isView || table.primaryKey.length === 0) continue;
    const shown = table.primaryKey.map(
      (column) => exposures.get(columnKey(table, column))?.find((exposure) => sameName(exposure.view, view))?.column,
    );
    if (shown.every((column) => column !== undefined)) return shown as string[];
  }
  return [];
}

/**
 * The many-to-one and one-to-one relationships of the foreign keys, carried over to the views that
 * show their columns: view to table, table to view, and view to view.
 */
export function viewRelationships(
  keys: readonly ForeignKeyRelationship[],
  exposures: ViewExposures,
): ForeignKeyRelationship[] {
  const found: ForeignKeyRelationship[] = [];
  for (const key of keys) {
    const cardinality = key.cardinality;
    if (cardinality.kind !== 'm2o' && cardinality.kind !== 'o2o') continue;
    const own = cardinality.columns.map(([column]) => column);
    const referenced = cardinality.columns.map(([, column]) => column);
    const table = [{ view: key.table, names: own, isView: false }];
    const foreign = [{ view: key.foreignTable, names: referenced, isView: false }];
    const fromViews = viewsShowing(exposures, key.table, own).map((each) => ({ ...each, isView: true }));
    const toViews = viewsShowing(exposures, key.foreignTable, referenced).map((each) => ({ ...each, isView: true }));
    for (const origin of [...table, ...fromViews]) {
      for (const target of [...foreign, ...toViews]) {
        if (!origin.isView && !target.isView) continue;
        const columns: ColumnPairs = origin.names.map((name, index) => [name, target.names[index] ?? '']);
        found.push({
          kind: 'fk',
          table: origin.view,
          foreignTable: target.view,
          isSelf: sameName(origin.view, target.view),
          cardinality: { ...cardinality, columns },
          tableIsView: origin.isView,
          foreignTableIsView: target.isView,
        });
      }
    }
  }
  return found;
}

// The schema cache: tables, columns, relationships and functions of the exposed schemas, read
// from pg_catalog the way PostgREST reads them. Every identifier that reaches SQL comes from here,
// never from the request. A miss reloads once (throttled), so objects created by a migration or
// the management API appear without a restart.
import type pg from 'pg';
import { z } from 'zod';
import { loadRelationships, type Relationship, type RelationshipIndex } from './relationships.ts';

/** The schema the Data API exposes when nothing else is configured. */
export const DEFAULT_SCHEMA = 'public';

export interface Column {
  name: string;
  /** format_type() of the column, safe to splice into a cast. */
  type: string;
  /** The DEFAULT expression as SQL (pg_get_expr), used by `Prefer: missing=default`. */
  defaultSql: string | undefined;
  /** json and jsonb columns take `->` directly; other types go through to_jsonb() first. */
  isJson: boolean;
  /** A tsvector column is searched as it is; other types go through to_tsvector() first. */
  isTsvector: boolean;
}

export interface Table {
  schema: string;
  name: string;
  columns: Map<string, Column>;
  primaryKey: string[];
  isView: boolean;
}

export interface FunctionArgument {
  name: string;
  type: string;
  hasDefault: boolean;
  variadic: boolean;
}

export type ReturnShape = 'void' | 'scalar' | 'composite' | 'setof-scalar' | 'setof-composite';

export interface RpcFunction {
  schema: string;
  name: string;
  arguments: FunctionArgument[];
  returns: ReturnShape;
  /** For a composite result: the name of its type (a table's name when it returns rows of a table). */
  returnTypeName: string | undefined;
  /** Output columns for composite results (filters and select lists are checked against them). */
  resultColumns: string[];
  volatility: 'immutable' | 'stable' | 'volatile';
  /** Its `SET name = value` clauses (pg_proc.proconfig), in order. */
  settings: [string, string][];
}

export interface CatalogSnapshot {
  schemas: readonly string[];
  /** Keyed by `schema.name`. */
  tables: Map<string, Table>;
  /** Keyed by `schema.name`; overloads in PostgREST's order (fewest arguments first). */
  functions: Map<string, RpcFunction[]>;
  relationships: RelationshipIndex;
  /** Functions of one table's row, usable like columns (`select=full_name`), by `schema.table`. */
  computedFields: Map<string, Set<string>>;
}

export function qualifiedKey(schema: string, name: string): string {
  return `${schema}.${name}`;
}

const columnRow = z.object({
  table_schema: z.string(),
  table_name: z.string(),
  relkind: z.string(),
  column_name: z.string(),
  type: z.string(),
  base_type: z.string(),
  default_sql: z.string().nullable(),
  primary_key: z.boolean(),
});

const functionRow = z.object({
  schema: z.string(),
  name: z.string(),
  arg_names: z.array(z.string().nullable()).nullable(),
  arg_types: z.array(z.string()),
  arg_modes: z.array(z.string()).nullable(),
  input_count: z.number(),
  default_count: z.number(),
  variadic: z.boolean(),
  returns_set: z.boolean(),
  return_kind: z.string(),
  return_type_name: z.string().nullable(),
  return_columns: z.array(z.string()).nullable(),
  volatility: z.string(),
  config: z.array(z.string()).nullable(),
  row_argument_of: z.string().nullable(),
});

// Columns of tables, views, materialized views, foreign and partitioned tables (not partitions).
const COLUMNS_SQL = `
  select n.nspname as table_schema, c.relname as table_name, c.relkind::text as relkind,
         a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type,
         coalesce(bt.typname, t.typname) as base_type,
         pg_get_expr(d.adbin, d.adrelid) as default_sql,
         coalesce(a.attnum = any(i.indkey), false) as primary_key
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  join pg_type t on t.oid = a.atttypid
  left join pg_type bt on bt.oid = t.typbasetype and t.typtype = 'd'
  left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
  left join pg_index i on i.indrelid = c.oid and i.indisprimary
  where n.nspname = any($1) and c.relkind in ('r', 'v', 'm', 'p', 'f') and not c.relispartition
  order by n.nspname, c.relname, a.attnum`;

// Arguments: all declared types (proallargtypes) with modes, so OUT/TABLE columns are known too.
const FUNCTIONS_SQL = `
  select n.nspname as schema, p.proname as name,
         p.proargnames as arg_names,
         array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as arg_types,
         p.proargmodes::text[] as arg_modes, p.pronargs::integer as input_count,
         p.pronargdefaults::integer as default_count, p.provariadic <> 0 as variadic,
         p.proretset as returns_set,
         case when p.prorettype = 'void'::regtype then 'void'
              when rt.typrelid <> 0 or p.prorettype = 'record'::regtype
                   or coalesce(p.proargmodes::text[] && '{t,b,o}', false) then 'composite'
              else 'scalar' end as return_kind,
         case when rt.typrelid <> 0 then rt.typname::text end as return_type_name,
         case when rt.typrelid <> 0 then
           array(select a.attname::text from pg_attribute a
                 where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum)
         end as return_columns,
         p.provolatile::text as volatility, p.proconfig as config,
         (select rn.nspname || '.' || r.relname from pg_class r join pg_namespace rn on rn.oid = r.relnamespace
          where p.pronargs = 1 and r.reltype = p.proargtypes[0]) as row_argument_of
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  join pg_type rt on rt.oid = p.prorettype
  where n.nspname = any($1) and p.prokind = 'f'`;

export async function loadCatalog(pool: pg.Pool, schemas: readonly string[]): Promise<CatalogSnapshot> {
  const [columns, functions] = await Promise.all([
    pool.query(COLUMNS_SQL, [schemas]),
    pool.query(FUNCTIONS_SQL, [schemas]),
  ]);
  const tables = new Map<string, Table>();
  for (const raw of columns.rows) {
    const row = columnRow.parse(raw);
    const key = qualifiedKey(row.table_schema, row.table_name);
    let table = tables.get(key);
    if (!table) {
      table = {
        schema: row.table_schema,
        name: row.table_name,
        columns: new Map(),
        primaryKey: [],
        isView: row.relkind === 'v' || row.relkind === 'm',
      };
      tables.set(key, table);
    }
    table.columns.set(row.column_name, {
      name: row.column_name,
      type: row.type,
      defaultSql: row.default_sql ?? undefined,
      isJson: row.base_type === 'json' || row.base_type === 'jsonb',
      isTsvector: row.base_type === 'tsvector',
    });
    if (row.primary_key) table.primaryKey.push(row.column_name);
  }
  const byName = new Map<string, RpcFunction[]>();
  const computedFields = new Map<string, Set<string>>();
  for (const raw of functions.rows) {
    const row = functionRow.parse(raw);
    const fn = describeFunction(row);
    const key = qualifiedKey(fn.schema, fn.name);
    byName.set(key, [...(byName.get(key) ?? []), fn]);
    if (row.row_argument_of !== null) {
      computedFields.set(row.row_argument_of, (computedFields.get(row.row_argument_of) ?? new Set()).add(fn.name));
    }
  }
  for (const overloads of byName.values()) overloads.sort((a, b) => a.arguments.length - b.arguments.length);
  const relationships = await loadRelationships(pool, schemas, tables);
  return { schemas, tables, functions: byName, relationships, computedFields };
}

/** pg_timezone_names: what `Prefer: timezone=` accepts. */
async function loadTimezones(pool: pg.Pool): Promise<ReadonlySet<string>> {
  const zones = await pool.query<{ name: string }>('select name from pg_timezone_names');
  return new Set(zones.rows.map((row) => row.name));
}

function describeFunction(row: z.infer<typeof functionRow>): RpcFunction {
  const modes = row.arg_modes ?? row.arg_types.map(() => 'i');
  const names = row.arg_names ?? [];
  const inputs: FunctionArgument[] = [];
  const outputs: string[] = [];
  row.arg_types.forEach((type, index) => {
    const mode = modes[index] ?? 'i';
    const name = names[index] ?? '';
    if (mode === 'i' || mode === 'b' || mode === 'v')
      inputs.push({ name, type, hasDefault: false, variadic: mode === 'v' });
    if (mode === 'o' || mode === 'b' || mode === 't') outputs.push(name);
  });
  // Defaults belong to the last input arguments.
  inputs.forEach((argument, index) => {
    argument.hasDefault = index >= inputs.length - row.default_count;
  });
  const composite = row.return_kind === 'composite';
  let returns: ReturnShape = 'scalar';
  if (row.return_kind === 'void') returns = 'void';
  else if (row.returns_set) returns = composite ? 'setof-composite' : 'setof-scalar';
  else if (composite) returns = 'composite';
  return {
    schema: row.schema,
    name: row.name,
    arguments: inputs,
    returns,
    returnTypeName: row.return_type_name ?? undefined,
    resultColumns: row.return_columns ?? outputs,
    volatility: row.volatility === 'i' ? 'immutable' : row.volatility === 's' ? 'stable' : 'volatile',
    // proconfig holds `name=value`; a name never contains `=`.
    settings: (row.config ?? []).map((entry) => {
      const equals = entry.indexOf('=');
      return [entry.slice(0, equals), entry.slice(equals + 1)];
    }),
  };
}

const RELOAD_THROTTLE_MS = 1000;

/** The one schema cache of a localbase: lookups, reload on a miss (throttled) or after DDL. */
export class Catalog {
  private snapshot: CatalogSnapshot | undefined;
  /** The load running now, and the one queued to start after it. */
  private loading: Promise<CatalogSnapshot> | undefined;
  private queued: Promise<CatalogSnapshot> | undefined;
  private loadedAt = 0;
  private timezoneNames: Promise<ReadonlySet<string>> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    readonly schemas: readonly string[] = [DEFAULT_SCHEMA],
  ) {}

  /**
   * A snapshot read after this call: a load already running may have started before a change the
   * caller just made (DDL through the management API while the boot's load runs), so a call during
   * one queues the next load. Callers in the meantime share that queued load.
   */
  reload(): Promise<CatalogSnapshot> {
    if (!this.loading) return this.startLoad();
    this.queued ??= this.loading
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.startLoad();
      });
    return this.queued;
  }

  private startLoad(): Promise<CatalogSnapshot> {
    const load: Promise<CatalogSnapshot> = loadCatalog(this.pool, this.schemas)
      .then((snapshot) => {
        this.snapshot = snapshot;
        this.loadedAt = Date.now();
        return snapshot;
      })
      .finally(() => {
        if (this.loading === load) this.loading = undefined;
      });
    this.loading = load;
    return load;
  }

  /**
   * The time zone names, read on first use rather than with the catalog: pg_timezone_names reads
   * every zone file, which took longer than the rest of the catalog at boot, and only requests with
   * `Prefer: timezone=` need it. The names do not change with the schema, so they are never reloaded.
   */
  timezones(): Promise<ReadonlySet<string>> {
    this.timezoneNames ??= loadTimezones(this.pool).catch((error: unknown) => {
      this.timezoneNames = undefined;
      throw error;
    });
    return this.timezoneNames;
  }

  /** The snapshot in use; before the first load has finished, that load (started if none runs). */
  async current(): Promise<CatalogSnapshot> {
    return this.snapshot ?? this.loading ?? this.reload();
  }

  /**
   * The snapshot in which `find` succeeds: the current one, or a reloaded one when it misses
   * (at most once per RELOAD_THROTTLE_MS, so unknown names cannot make every request reload).
   */
  async resolve<T>(
    find: (snapshot: CatalogSnapshot) => T | undefined,
  ): Promise<{ snapshot: CatalogSnapshot; found: T | undefined }> {
    const snapshot = await this.current();
    const found = find(snapshot);
    if (found !== undefined || Date.now() - this.loadedAt < RELOAD_THROTTLE_MS) return { snapshot, found };
    const reloaded = await this.reload();
    return { snapshot: reloaded, found: find(reloaded) };
  }
}

export type { Relationship };

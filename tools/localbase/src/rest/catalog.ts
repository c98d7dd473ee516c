// The schema cache: tables, columns and functions of the exposed schema, read from pg_catalog.
// Every identifier that reaches SQL comes from here, never from the request. A miss reloads once
// (throttled), so objects created by a migration or the management API appear without a restart.
import type pg from 'pg';
import { z } from 'zod';

export const EXPOSED_SCHEMA = 'public';

export interface Column {
  name: string;
  /** format_type() of the column, safe to splice into a cast. */
  type: string;
  /** The type's name as realtime-js knows it (int4, text, timestamptz, ...). */
  udtName: string;
  generated: boolean;
}

export interface Table {
  name: string;
  columns: Map<string, Column>;
  primaryKey: string[];
}

export interface FunctionArgument {
  name: string;
  type: string;
  hasDefault: boolean;
}

export type ReturnShape = 'void' | 'scalar' | 'composite' | 'setof-scalar' | 'setof-composite';

export interface RpcFunction {
  name: string;
  /** regprocedure text of this overload, e.g. public.f(integer), used to call exactly it. */
  signature: string;
  arguments: FunctionArgument[];
  returns: ReturnShape;
  /** Output columns for composite results (filters and select lists are checked against them). */
  resultColumns: string[];
}

export interface CatalogSnapshot {
  tables: Map<string, Table>;
  functions: Map<string, RpcFunction[]>;
}

const columnRow = z.object({
  table_name: z.string(),
  column_name: z.string(),
  type: z.string(),
  udt_name: z.string(),
  generated: z.boolean(),
  primary_key: z.boolean(),
});

const functionRow = z.object({
  name: z.string(),
  signature: z.string(),
  arg_names: z.array(z.string().nullable()).nullable(),
  arg_types: z.array(z.string()),
  arg_modes: z.array(z.string()).nullable(),
  input_count: z.number(),
  default_count: z.number(),
  returns_set: z.boolean(),
  return_type: z.string(),
  return_kind: z.string(),
  return_columns: z.array(z.string()).nullable(),
});

const COLUMNS_SQL = `
  select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type,
         t.typname as udt_name, a.attgenerated <> '' as generated,
         coalesce(a.attnum = any(i.indkey), false) as primary_key
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  join pg_type t on t.oid = a.atttypid
  left join pg_index i on i.indrelid = c.oid and i.indisprimary
  where n.nspname = $1 and c.relkind in ('r', 'v', 'm', 'p', 'f')
  order by c.relname, a.attnum`;

// Arguments: all declared types (proallargtypes) with modes, so OUT/TABLE columns are known too.
const FUNCTIONS_SQL = `
  select p.proname as name, p.oid::regprocedure::text as signature,
         p.proargnames as arg_names,
         array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as arg_types,
         p.proargmodes::text[] as arg_modes, p.pronargs::integer as input_count,
         p.pronargdefaults::integer as default_count, p.proretset as returns_set,
         format_type(p.prorettype, null) as return_type,
         case when p.prorettype = 'void'::regtype then 'void'
              when rt.typrelid <> 0 or p.prorettype = 'record'::regtype then 'composite'
              else 'scalar' end as return_kind,
         case when rt.typrelid <> 0 then
           array(select a.attname::text from pg_attribute a
                 where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped order by a.attnum)
         end as return_columns
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  join pg_type rt on rt.oid = p.prorettype
  where n.nspname = $1 and p.prokind = 'f'`;

export async function loadCatalog(pool: pg.Pool): Promise<CatalogSnapshot> {
  const [columns, functions] = await Promise.all([
    pool.query(COLUMNS_SQL, [EXPOSED_SCHEMA]),
    pool.query(FUNCTIONS_SQL, [EXPOSED_SCHEMA]),
  ]);
  const tables = new Map<string, Table>();
  for (const raw of columns.rows) {
    const row = columnRow.parse(raw);
    let table = tables.get(row.table_name);
    if (!table) {
      table = { name: row.table_name, columns: new Map(), primaryKey: [] };
      tables.set(row.table_name, table);
    }
    table.columns.set(row.column_name, {
      name: row.column_name,
      type: row.type,
      udtName: row.udt_name,
      generated: row.generated,
    });
    if (row.primary_key) table.primaryKey.push(row.column_name);
  }
  const byName = new Map<string, RpcFunction[]>();
  for (const raw of functions.rows) {
    const fn = describeFunction(functionRow.parse(raw));
    byName.set(fn.name, [...(byName.get(fn.name) ?? []), fn]);
  }
  return { tables, functions: byName };
}

function describeFunction(row: z.infer<typeof functionRow>): RpcFunction {
  const modes = row.arg_modes ?? row.arg_types.map(() => 'i');
  const names = row.arg_names ?? [];
  const inputs: FunctionArgument[] = [];
  const outputs: string[] = [];
  row.arg_types.forEach((type, index) => {
    const mode = modes[index] ?? 'i';
    const name = names[index] ?? '';
    if (mode === 'i' || mode === 'b' || mode === 'v') inputs.push({ name, type, hasDefault: false });
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
    name: row.name,
    signature: row.signature,
    arguments: inputs,
    returns,
    resultColumns: row.return_columns ?? outputs,
  };
}

const RELOAD_THROTTLE_MS = 1000;

/** The one schema cache of a localbase: lookups, reload on a miss (throttled) or after DDL. */
export class Catalog {
  private snapshot: CatalogSnapshot | undefined;
  private loading: Promise<CatalogSnapshot> | undefined;
  private loadedAt = 0;

  constructor(private readonly pool: pg.Pool) {}

  async reload(): Promise<CatalogSnapshot> {
    this.loading ??= loadCatalog(this.pool).finally(() => {
      this.loading = undefined;
    });
    this.snapshot = await this.loading;
    this.loadedAt = Date.now();
    return this.snapshot;
  }

  private async current(): Promise<CatalogSnapshot> {
    return this.snapshot ?? this.reload();
  }

  private async lookup<T>(find: (snapshot: CatalogSnapshot) => T | undefined): Promise<T | undefined> {
    const found = find(await this.current());
    if (found !== undefined || Date.now() - this.loadedAt < RELOAD_THROTTLE_MS) return found;
    return find(await this.reload());
  }

  table(name: string): Promise<Table | undefined> {
    return this.lookup((snapshot) => snapshot.tables.get(name));
  }

  functions(name: string): Promise<RpcFunction[] | undefined> {
    return this.lookup((snapshot) => snapshot.functions.get(name));
  }
}

// What the mutation run reads from the database it built: every policy in `public`, on
// storage.objects and on realtime.messages (who may join a private channel), and every table those
// schemas hold with what the API roles may do to it.
// Read from pg_policies and pg_class, so a new policy or table joins the run by existing.
import type pg from 'pg';

export type Command = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
export const COMMANDS: readonly Command[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

/** The roles a Data API request runs as under RLS (service_role bypasses it). */
export type ApiRole = 'anon' | 'authenticated';
export const API_ROLES: readonly ApiRole[] = ['anon', 'authenticated'];

export interface TableRef {
  schema: string;
  table: string;
}

export interface Policy extends TableRef {
  name: string;
  permissive: boolean;
  /** As pg_policies spells them: `{public}` means every role. */
  roles: string[];
  command: Command | 'ALL';
  /** The USING expression, null when the policy has none. */
  using: string | null;
  /** The WITH CHECK expression, null when the policy has none. */
  check: string | null;
}

export interface Table extends TableRef {
  rlsEnabled: boolean;
  /** Which API role holds which command's privilege on the table (or on any of its columns). */
  privileges: Record<ApiRole, Record<Command, boolean>>;
}

export interface Catalog {
  policies: Policy[];
  tables: Table[];
}

/** The tables the run covers: every table in public, storage.objects and realtime.messages. */
const COVERED = `(n.nspname = 'public' or (n.nspname = 'storage' and c.relname = 'objects')
  or (n.nspname = 'realtime' and c.relname = 'messages'))`;

export async function readCatalog(client: pg.ClientBase): Promise<Catalog> {
  const policies = await client.query<{
    schema: string;
    table: string;
    name: string;
    permissive: string;
    roles: string[];
    command: Policy['command'];
    using: string | null;
    check: string | null;
  }>(`
    select p.schemaname::text as schema, p.tablename::text as table, p.policyname::text as name,
           p.permissive, p.roles::text[] as roles, p.cmd as command, p.qual as using, p.with_check as check
    from pg_policies p
    join pg_namespace n on n.nspname = p.schemaname
    join pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
    where ${COVERED}
    order by 1, 2, 3`);
  const tables = await client.query<{
    schema: string;
    table: string;
    rls: boolean;
    anon: [boolean, boolean, boolean, boolean];
    authenticated: [boolean, boolean, boolean, boolean];
  }>(`
    select n.nspname::text as schema, c.relname::text as table, c.relrowsecurity as rls,
           array[has_any_column_privilege('anon', c.oid, 'select'), has_any_column_privilege('anon', c.oid, 'insert'),
                 has_any_column_privilege('anon', c.oid, 'update'), has_table_privilege('anon', c.oid, 'delete')] as anon,
           array[has_any_column_privilege('authenticated', c.oid, 'select'),
                 has_any_column_privilege('authenticated', c.oid, 'insert'),
                 has_any_column_privilege('authenticated', c.oid, 'update'),
                 has_table_privilege('authenticated', c.oid, 'delete')] as authenticated
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${COVERED} and c.relkind in ('r', 'p')
    order by 1, 2`);
  const byCommand = (flags: boolean[]): Record<Command, boolean> =>
    Object.fromEntries(COMMANDS.map((command, index) => [command, flags[index] === true])) as Record<Command, boolean>;
  return {
    policies: policies.rows.map((row) => ({
      schema: row.schema,
      table: row.table,
      name: row.name,
      permissive: row.permissive === 'PERMISSIVE',
      roles: row.roles,
      command: row.command,
      using: row.using,
      check: row.check,
    })),
    tables: tables.rows.map((row) => ({
      schema: row.schema,
      table: row.table,
      rlsEnabled: row.rls,
      privileges: { anon: byCommand(row.anon), authenticated: byCommand(row.authenticated) },
    })),
  };
}

export function qualifiedName(ref: TableRef): string {
  return `${quoteIdent(ref.schema)}.${quoteIdent(ref.table)}`;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

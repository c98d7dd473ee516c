// One cell of the attack matrix: an attacker (anon, or another signed-in student) tries to read,
// create, change or delete a victim's rows in one table, in a transaction that is rolled back
// afterwards. The verdict is decided by re-reading the table as the database owner, never by
// trusting what the attacker was told:
//   select  the victim's rows the attacker's query counts (beyond those the owner finds an allowed
//           rule covers);
//   insert  a copy of one of the victim's rows, after the owner removed the original so no unique
//           key stands in the way: does a row of the victim's exist again?
//   update  an unfiltered UPDATE (no WHERE, a constant value: PostgreSQL then checks rows against
//           the UPDATE policy alone) setting one column to the victim's own value: does any of the
//           victim's rows have a new row version?
//   delete  an unfiltered DELETE: is any of the victim's rows gone?
// An error is a refusal only when it is 42501 (a missing privilege or a policy's WITH CHECK);
// any other error is reported, since it proves nothing about the rules.
import type pg from 'pg';
import { becomeActor, becomeOwner, type Actor } from './acting.ts';

export const VERBS = ['select', 'insert', 'update', 'delete'] as const;
export type Verb = (typeof VERBS)[number];

export interface TargetTable {
  name: string;
  /** Columns referencing public.users(id) or auth.users(id): a row whose value is the victim's is hers. */
  ownerColumns: string[];
  /** Every column an INSERT may name (not generated, not identity). */
  insertColumns: string[];
  /** The column the update attack sets: outside every unique index, not generated, not an owner column. */
  updateColumn: { name: string; type: string } | null;
}

export type Outcome =
  | { kind: 'refused'; code: string }
  | { kind: 'nothing' }
  | { kind: 'reached'; rows: number; allowedRows: number }
  | { kind: 'inconclusive'; reason: string };

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function tableSql(table: TargetTable): string {
  return `public.${ident(table.name)}`;
}

/** `(owner_a = $1 or owner_b = $1)`: the victim's rows, with the victim's id as parameter $1. */
export function victimRowsSql(table: TargetTable): string {
  return `(${table.ownerColumns.map((column) => `${ident(column)} = $1`).join(' or ')})`;
}

/**
 * Tables whose rows name a student on purpose without a foreign key, because a row must outlive
 * her account unchanged (docs/database.md#moderation-audit-log): the columns that make a row hers.
 */
export const OWNER_COLUMNS_WITHOUT_FOREIGN_KEY: Record<string, string[]> = {
  admin_audit_log: ['actor_id', 'target_user_id'],
};

export async function readTargets(client: pg.ClientBase): Promise<TargetTable[]> {
  const { rows } = await client.query<{
    name: string;
    owners: string[] | null;
    inserts: string[];
    updatable: { name: string; type: string }[] | null;
  }>(`
    with tbl as (
      select c.oid, c.relname::text as name from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
    ),
    owner as (
      select k.conrelid as oid, a.attname::text as name
      from pg_constraint k
      join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
      where k.contype = 'f' and cardinality(k.conkey) = 1
        and k.confrelid in ('public.users'::regclass, 'auth.users'::regclass)
    ),
    col as (
      select a.attrelid as oid, a.attnum, a.attname::text as name, format_type(a.atttypid, a.atttypmod) as type,
             a.attgenerated = '' and a.attidentity = '' as insertable,
             exists (select 1 from pg_index i
                     where i.indrelid = a.attrelid and i.indisunique
                       and (a.attnum = any (i.indkey::int2[])
                            or coalesce(pg_get_expr(i.indexprs, i.indrelid), '') ~ ('\\m' || a.attname || '\\M'))) as unique_key
      from pg_attribute a
      where a.attrelid in (select oid from tbl) and a.attnum > 0 and not a.attisdropped
    )
    select t.name,
           (select array_agg(o.name order by o.name) from owner o where o.oid = t.oid) as owners,
           (select array_agg(c.name order by c.attnum) from col c where c.oid = t.oid and c.insertable) as inserts,
           (select jsonb_agg(jsonb_build_object('name', c.name, 'type', c.type) order by c.attnum) from col c
             where c.oid = t.oid and c.insertable and not c.unique_key
               and c.name not in (select o.name from owner o where o.oid = t.oid)) as updatable
    from tbl t order by t.name`);
  return rows.map((row) => ({
    name: row.name,
    ownerColumns: row.owners ?? OWNER_COLUMNS_WITHOUT_FOREIGN_KEY[row.name] ?? [],
    insertColumns: row.inserts,
    updateColumn: row.updatable?.[0] ?? null,
  }));
}

export async function countVictimRows(client: pg.ClientBase, table: TargetTable, victim: string): Promise<number> {
  const { rows } = await client.query<{ count: number }>(
    `select count(*)::int as count from ${tableSql(table)} where ${victimRowsSql(table)}`,
    [victim],
  );
  return rows[0]?.count ?? 0;
}

/** Each of the victim's rows by physical version: any update or delete changes this. */
async function versions(client: pg.ClientBase, table: TargetTable, victim: string): Promise<string> {
  const { rows } = await client.query<{ v: string }>(
    `select coalesce(string_agg(ctid::text || ':' || xmin::text, ',' order by ctid), '') as v
     from ${tableSql(table)} where ${victimRowsSql(table)}`,
    [victim],
  );
  return rows[0]?.v ?? '';
}

interface Attempt {
  /** As the owner, before the attacker acts: may change the table, returns what the check needs. */
  prepare(client: pg.ClientBase): Promise<{ sql: string; params: unknown[] }>;
  /** As the owner, after the attacker acted without an error. */
  judge(client: pg.ClientBase, result: pg.QueryResult): Promise<Outcome>;
}

function selectAttempt(table: TargetTable, victim: string, allowedRows: string): Attempt {
  return {
    // Which of the victim's rows the rule allows is decided by the owner, who can read whatever the
    // rule names (another table, such as the victim's privacy switches, that the attacker cannot).
    prepare: async (client) => {
      const { rows } = await client.query<{ allowed: string[] }>(
        `select coalesce(array_agg(ctid::text), '{}') as allowed from ${tableSql(table)}
         where ${victimRowsSql(table)} and coalesce(${allowedRows}, false)`,
        [victim],
      );
      return {
        sql: `select count(*) filter (where ctid::text = any ($2::text[]))::int as allowed, count(*)::int as seen
              from ${tableSql(table)} where ${victimRowsSql(table)}`,
        params: [victim, rows[0]?.allowed ?? []],
      };
    },
    judge: async (_client, result) => {
      const { seen, allowed } = result.rows[0] as { seen: number; allowed: number };
      return seen === 0 ? { kind: 'nothing' } : { kind: 'reached', rows: seen, allowedRows: allowed };
    },
  };
}

function insertAttempt(table: TargetTable, victim: string): Attempt {
  let remaining = 0;
  return {
    prepare: async (client) => {
      const columns = table.insertColumns.map(ident).join(', ');
      const victimRow = `${tableSql(table)} as victim_row
         where ctid = (select min(ctid) from ${tableSql(table)} where ${victimRowsSql(table)})`;
      // An append-only table refuses even the owner's delete; its rows have no key an attacker
      // would have to supply, so the copy is inserted next to the original instead.
      await client.query('savepoint remove_original');
      const { rows } = await client
        .query<{ row: unknown }>(`delete from ${victimRow} returning to_jsonb(victim_row) as row`, [victim])
        .catch(async () => {
          await client.query('rollback to savepoint remove_original');
          return client.query<{ row: unknown }>(`select to_jsonb(victim_row) as row from ${victimRow}`, [victim]);
        });
      await client.query('release savepoint remove_original');
      remaining = await countVictimRows(client, table, victim);
      return {
        sql: `insert into ${tableSql(table)} (${columns}) select ${columns} from jsonb_populate_record(null::${tableSql(table)}, $1::jsonb)`,
        params: [JSON.stringify(rows[0]?.row ?? {})],
      };
    },
    judge: async (client) => {
      const now = await countVictimRows(client, table, victim);
      return now > remaining ? { kind: 'reached', rows: now - remaining, allowedRows: 0 } : { kind: 'nothing' };
    },
  };
}

function updateAttempt(table: TargetTable, victim: string): Attempt {
  let before = '';
  return {
    prepare: async (client) => {
      const column = table.updateColumn;
      if (!column) throw new Error(`public.${table.name} has no column outside its unique keys to update`);
      const { rows } = await client.query<{ value: string | null }>(
        `select ${ident(column.name)}::text as value from ${tableSql(table)} where ${victimRowsSql(table)} order by ctid limit 1`,
        [victim],
      );
      before = await versions(client, table, victim);
      return {
        sql: `update ${tableSql(table)} set ${ident(column.name)} = $1::${column.type}`,
        params: [rows[0]?.value ?? null],
      };
    },
    judge: async (client) => {
      const after = await versions(client, table, victim);
      return after === before ? { kind: 'nothing' } : { kind: 'reached', rows: 1, allowedRows: 0 };
    },
  };
}

function deleteAttempt(table: TargetTable, victim: string): Attempt {
  let before = 0;
  return {
    prepare: async (client) => {
      before = await countVictimRows(client, table, victim);
      return { sql: `delete from ${tableSql(table)}`, params: [] };
    },
    judge: async (client) => {
      const after = await countVictimRows(client, table, victim);
      return after === before ? { kind: 'nothing' } : { kind: 'reached', rows: before - after, allowedRows: 0 };
    },
  };
}

export interface AttackOptions {
  /** Which of the victim's rows this role may read under an allowed rule (a condition, evaluated as the owner). */
  allowedRows?: string | undefined;
  /** Run as the owner first, inside the rolled-back transaction (the matrix's own tests weaken a rule). */
  setupSql?: string;
}

/** Runs one cell in a transaction that is always rolled back, so every cell sees the same world. */
export async function attack(
  client: pg.ClientBase,
  table: TargetTable,
  verb: Verb,
  attacker: Actor,
  victim: string,
  options: AttackOptions = {},
): Promise<Outcome> {
  const attempt =
    verb === 'select'
      ? selectAttempt(table, victim, options.allowedRows ?? 'false')
      : verb === 'insert'
        ? insertAttempt(table, victim)
        : verb === 'update'
          ? updateAttempt(table, victim)
          : deleteAttempt(table, victim);
  await client.query('begin');
  try {
    if (options.setupSql) await client.query(options.setupSql);
    const { sql, params } = await attempt.prepare(client);
    await client.query('savepoint attack');
    let result: pg.QueryResult;
    try {
      await becomeActor(client, attacker);
      result = await client.query(sql, params);
      await becomeOwner(client);
    } catch (error) {
      await client.query('rollback to savepoint attack');
      const code = (error as { code?: string }).code ?? '';
      return code === '42501'
        ? { kind: 'refused', code }
        : { kind: 'inconclusive', reason: `${code} ${(error as Error).message}` };
    }
    return await attempt.judge(client, result);
  } finally {
    await client.query('rollback');
  }
}

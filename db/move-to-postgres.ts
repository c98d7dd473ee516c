// `npm run db:move-to-postgres`: copies a DATA_DIR's PGlite database into the embedded PostgreSQL.
// Both are brought to the same schema first (platform, migrations and what the caller installs,
// localbase's own objects), then every table of every schema they create is copied with triggers
// and foreign keys quiet (`session_replication_role = replica`, as pg_dump's data-only restore
// does), sequences follow, and each table's row count and checksum are compared before the new
// cluster is renamed into place. The copy goes into a fresh folder (`postgres.moving`), so a run
// that fails leaves no cluster behind and can simply be run again. The PGlite files are never
// changed beyond what a server start would do (migrations), and stay until the admin removes them.
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.ts';
import { clusterDir, clusterExists, startEmbeddedPostgres } from './embedded-postgres.ts';
import { pgliteDataExists, pgliteDir } from './engine-choice.ts';
import { migrateDatabase } from './migrate.ts';
import { openPglite, SEARCH_PATH_SQL } from './pglite.ts';
import { preparePostgres } from './postgres-setup.ts';

export class MoveRefusedError extends Error {}

export interface MoveOptions {
  dataDir: string;
  /** Installs what else a server start creates (localbase's own schema) on a pool: run on both sides. */
  prepare?: (pool: pg.Pool) => Promise<void>;
  log?: (line: string) => void;
  /** For tests: the folder of `postgres` and `initdb`. */
  postgresBinDir?: string;
}

export interface TableReport {
  table: string;
  rows: number;
}

export interface MoveReport {
  tables: TableReport[];
  sequences: number;
  cluster: string;
}

/** Rows read and written per round trip. */
const BATCH_ROWS = 1_000;

/** The same text output on both sides, so that the checksums of equal rows are equal. */
const SAME_OUTPUT_SQL = `set timezone = 'UTC'; set datestyle = 'ISO, MDY'; set intervalstyle = 'postgres';
  set extra_float_digits = 1; set bytea_output = 'hex'`;

/**
 * localbase's record of its installed SQL describes the target's own objects (installed there by
 * `prepare`): copying the source's would tell the next start that a digest is current when it is not.
 */
const NOT_COPIED = new Set(['_localbase.installed']);

interface TableShape {
  schema: string;
  name: string;
  /** Quoted column names, generated columns left out (the target computes them). */
  columns: string[];
}

const quote = (name: string) => pg.escapeIdentifier(name);
const qualified = (table: { schema: string; name: string }) => `${quote(table.schema)}.${quote(table.name)}`;

/** Ordinary tables outside the system schemas, with their columns; none an extension owns. */
async function tablesOf(client: pg.ClientBase): Promise<TableShape[]> {
  const { rows } = await client.query<{ schema: string; name: string; columns: string[] }>(
    `select n.nspname as schema, c.relname as name,
            array_agg(a.attname::text order by a.attnum) filter (where a.attgenerated = '') as columns
     from pg_class c
     join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
       and not exists (select from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
     group by 1, 2 order by 1, 2`,
  );
  return rows.map((row) => ({ schema: row.schema, name: row.name, columns: row.columns.map(quote) }));
}

async function sequencesOf(client: pg.ClientBase): Promise<{ schema: string; name: string }[]> {
  const { rows } = await client.query<{ schema: string; name: string }>(
    `select schemaname as schema, sequencename as name from pg_sequences
     where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2`,
  );
  return rows;
}

/** Row count and a checksum of every row's text, independent of the rows' order. */
async function fingerprint(client: pg.ClientBase, table: TableShape): Promise<{ rows: number; sum: string }> {
  const row = `row(${table.columns.join(', ')})::text`;
  const { rows } = await client.query<{ rows: number; sum: string | null }>(
    `select count(*)::int as rows, md5(string_agg(md5(${row}), '' order by md5(${row}))) as sum from ${qualified(table)}`,
  );
  return { rows: rows[0]?.rows ?? 0, sum: rows[0]?.sum ?? '' };
}

/**
 * Copies one table in batches through a cursor: each row as JSON text (no value passes through a
 * JavaScript type on the way), rebuilt on the target by the table's own row type.
 */
async function copyTable(source: pg.ClientBase, target: pg.ClientBase, table: TableShape): Promise<void> {
  const columns = table.columns.join(', ');
  await source.query(
    `declare move_rows no scroll cursor for select row_to_json(t)::text as row from (select ${columns} from ${qualified(table)}) t`,
  );
  try {
    for (;;) {
      const { rows } = await source.query<{ row: string }>(`fetch ${BATCH_ROWS} from move_rows`);
      if (rows.length === 0) break;
      await target.query(
        `insert into ${qualified(table)} (${columns}) overriding system value
         select ${columns} from json_populate_recordset(null::${qualified(table)}, $1::json)`,
        [`[${rows.map((row) => row.row).join(',')}]`],
      );
      if (rows.length < BATCH_ROWS) break;
    }
  } finally {
    await source.query('close move_rows');
  }
}

async function openSource(dataDir: string) {
  const pglite = await openPglite(pgliteDir(dataDir));
  await pglite.exec(SEARCH_PATH_SQL);
  const pool = new pg.Pool(createPgConfig(pglite));
  return {
    pool,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
}

/**
 * Moves DATA_DIR's PGlite database into a new embedded PostgreSQL cluster. Refuses (MoveRefusedError)
 * while a server holds DATA_DIR, when there is nothing to move, or when a cluster exists already.
 */
export async function moveToPostgres(options: MoveOptions): Promise<MoveReport> {
  const { dataDir } = options;
  const log = options.log ?? (() => {});
  const unlock = await lockDataDir(dataDir);
  try {
    if (clusterExists(dataDir)) {
      throw new MoveRefusedError(
        `${clusterDir(dataDir)} exists already: the server uses it, and nothing was moved (remove ${pgliteDir(dataDir)} once you no longer need it)`,
      );
    }
    if (!pgliteDataExists(dataDir))
      throw new MoveRefusedError(`no PGlite database in ${pgliteDir(dataDir)}: nothing to move`);
    const setup = await preparePostgres(dataDir, { binDir: options.postgresBinDir, log });
    if (!setup.ok) throw new MoveRefusedError(`PostgreSQL cannot run here: ${setup.reason}`);

    const moving = `${clusterDir(dataDir)}.moving`;
    // What a failed run left: started again from nothing.
    await rm(moving, { recursive: true, force: true });
    log(`reading the PGlite database in ${pgliteDir(dataDir)}`);
    const source = await openSource(dataDir);
    let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    let target: pg.Pool | undefined;
    try {
      await withClient(source.pool, (client) => migrateDatabase(client));
      await options.prepare?.(source.pool);
      log(`creating PostgreSQL ${setup.binaries.version} in ${moving}`);
      server = await startEmbeddedPostgres({
        dataDir,
        directory: moving,
        binaries: setup.binaries,
        user: setup.user,
        log,
      });
      target = new pg.Pool({
        host: server.host,
        port: server.port,
        user: server.user,
        password: server.password,
        database: server.database,
        max: 2,
      });
      // An idle connection the cluster ends (its shutdown, under load possibly before the pool has
      // closed it) must not crash the move: the next query on it fails instead, and is reported.
      target.on('error', (error) => log(`postgres connection: ${error.message}`));
      await withClient(target, (client) => migrateDatabase(client));
      await options.prepare?.(target);
      const report = await copyEverything(source.pool, target, log);
      await target.end();
      target = undefined;
      await server.stop();
      server = undefined;
      await rename(moving, clusterDir(dataDir));
      log(`moved ${report.tables.length} tables and ${report.sequences} sequences into ${clusterDir(dataDir)}`);
      return { ...report, cluster: clusterDir(dataDir) };
    } finally {
      await target?.end().catch(() => {});
      await server?.stop().catch(() => {});
      await source.close().catch(() => {});
      if (existsSync(moving)) await rm(moving, { recursive: true, force: true });
    }
  } finally {
    await unlock();
  }
}

async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}

/** The copy itself, in one transaction on each side: all of it, checked, or none of it. */
async function copyEverything(
  sourcePool: pg.Pool,
  targetPool: pg.Pool,
  log: (line: string) => void,
): Promise<{ tables: TableReport[]; sequences: number }> {
  return withClient(sourcePool, (source) =>
    withClient(targetPool, async (target) => {
      await source.query(SAME_OUTPUT_SQL);
      await target.query(SAME_OUTPUT_SQL);
      await source.query('begin isolation level repeatable read read only');
      await target.query('begin');
      try {
        await target.query(`set local session_replication_role = replica`);
        const sourceTables = (await tablesOf(source)).filter(
          (table) => !NOT_COPIED.has(`${table.schema}.${table.name}`),
        );
        const targetTables = new Map((await tablesOf(target)).map((table) => [`${table.schema}.${table.name}`, table]));
        const missing = sourceTables.filter((table) => !targetTables.has(`${table.schema}.${table.name}`));
        if (missing.length > 0) {
          throw new Error(
            `the new database lacks ${missing.map((table) => `${table.schema}.${table.name}`).join(', ')}`,
          );
        }
        // Only what both sides have; a column the source lacks keeps the target's default.
        const shapes = sourceTables.map((table) => {
          const other = targetTables.get(`${table.schema}.${table.name}`) as TableShape;
          return { ...table, columns: table.columns.filter((column) => other.columns.includes(column)) };
        });
        // What platform and migrations seeded on the target (buckets, recorded migrations) is replaced by the source's.
        if (shapes.length > 0) await target.query(`truncate ${shapes.map(qualified).join(', ')}`);
        const tables: TableReport[] = [];
        for (const table of shapes) {
          await copyTable(source, target, table);
          const [from, to] = await Promise.all([fingerprint(source, table), fingerprint(target, table)]);
          if (from.rows !== to.rows || from.sum !== to.sum) {
            throw new Error(
              `${table.schema}.${table.name} differs after the copy (${from.rows} rows read, ${to.rows} written, checksums ${from.sum || '-'} / ${to.sum || '-'})`,
            );
          }
          tables.push({ table: `${table.schema}.${table.name}`, rows: to.rows });
          if (to.rows > 0) log(`  ${table.schema}.${table.name}: ${to.rows} rows, checksum equal`);
        }
        const sequences = await sequencesOf(source);
        for (const sequence of sequences) {
          const { rows } = await source.query<{ last_value: string; is_called: boolean }>(
            `select last_value::text, is_called from ${qualified(sequence)}`,
          );
          const state = rows[0];
          if (state) {
            await target.query(`select setval($1::regclass, $2::bigint, $3)`, [
              qualified(sequence),
              state.last_value,
              state.is_called,
            ]);
          }
        }
        await target.query('commit');
        await source.query('commit');
        return { tables, sequences: sequences.length };
      } catch (error) {
        await target.query('rollback').catch(() => {});
        await source.query('rollback').catch(() => {});
        throw error;
      }
    }),
  );
}

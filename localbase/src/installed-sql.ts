// localbase's own objects in the database (schema `_localbase`: the session guard, the realtime
// capture) are installed at boot by idempotent SQL. Running that DDL on every start took about
// 100 ms of a warm PGlite boot, so each install records the digest of its SQL and is skipped while
// the recorded digest matches and its objects still exist (a console script may have dropped one).
import { createHash } from 'node:crypto';
import type pg from 'pg';

export interface Installation {
  /** Names the installation in `_localbase.installed`. */
  name: string;
  sql: string;
  /** Objects the SQL creates, as `to_regclass` / `to_regprocedure` take them. */
  tables: string[];
  functions: string[];
}

const RECORD_SQL = `
create table if not exists _localbase.installed (name text primary key, digest text not null);
revoke all on _localbase.installed from public;`;

function digestOf(installation: Installation): string {
  return createHash('sha256').update(installation.sql).digest('hex');
}

/**
 * Whether this exact SQL was installed and its objects are all there. Never lets a query fail: on
 * PGlite a failed pool.query ends the one shared connection.
 */
async function isCurrent(pool: pg.Pool, installation: Installation, digest: string): Promise<boolean> {
  const recorded = await pool.query<{ found: boolean }>(
    `select to_regclass('_localbase.installed') is not null as found`,
  );
  if (!recorded.rows[0]?.found) return false;
  const { rows } = await pool.query<{ current: boolean }>(
    `select i.digest = $2
            and (select bool_and(to_regclass(t) is not null) from unnest($3::text[]) t) is not false
            and (select bool_and(to_regprocedure(f) is not null) from unnest($4::text[]) f) is not false as current
     from _localbase.installed i where i.name = $1`,
    [installation.name, digest, installation.tables, installation.functions],
  );
  return rows[0]?.current === true;
}

/** Runs the installation's SQL unless it is current; answers whether it ran. */
export async function installIfChanged(pool: pg.Pool, installation: Installation): Promise<boolean> {
  const digest = digestOf(installation);
  if (await isCurrent(pool, installation, digest)) return false;
  await pool.query(installation.sql);
  await pool.query(RECORD_SQL);
  await pool.query(
    `insert into _localbase.installed (name, digest) values ($1, $2)
     on conflict (name) do update set digest = excluded.digest`,
    [installation.name, digest],
  );
  return true;
}

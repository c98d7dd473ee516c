// localbase's own SQL is installed once and skipped on later boots, unless it changed or one of its
// objects is gone. On PGlite and on PostgreSQL 15.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { installIfChanged, type Installation } from '../src/installed-sql.ts';
import { installSessionGuard } from '../src/session-guard.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
});

afterAll(async () => {
  await database?.close();
});

const probe = (answer: number): Installation => ({
  name: 'install-probe',
  sql: `create schema if not exists _localbase;
        create table if not exists _localbase.install_probe_rows (id int);
        create or replace function _localbase.install_probe() returns int language sql as $$ select ${answer} $$;`,
  tables: ['_localbase.install_probe_rows'],
  functions: ['_localbase.install_probe()'],
});

async function probeAnswer(): Promise<number> {
  return (
    (await database.pool.query<{ answer: number }>('select _localbase.install_probe() as answer')).rows[0]?.answer ??
    Number.NaN
  );
}

describe('installIfChanged', () => {
  it('installs once, then skips the same SQL', async () => {
    expect(await installIfChanged(database.pool, probe(1))).toBe(true);
    expect(await probeAnswer()).toBe(1);
    expect(await installIfChanged(database.pool, probe(1))).toBe(false);
  });

  it('installs again when the SQL changed', async () => {
    expect(await installIfChanged(database.pool, probe(2))).toBe(true);
    expect(await probeAnswer()).toBe(2);
    expect(await installIfChanged(database.pool, probe(2))).toBe(false);
  });

  it('installs again when one of its objects was dropped behind its back', async () => {
    await database.pool.query('drop function _localbase.install_probe()');
    expect(await installIfChanged(database.pool, probe(2))).toBe(true);
    expect(await probeAnswer()).toBe(2);
    await database.pool.query('drop table _localbase.install_probe_rows');
    expect(await installIfChanged(database.pool, probe(2))).toBe(true);
    const { rows } = await database.pool.query<{ found: boolean }>(
      `select to_regclass('_localbase.install_probe_rows') is not null as found`,
    );
    expect(rows[0]?.found).toBe(true);
  });

  it('installs from nothing when the whole schema is gone, as after a console script dropped it', async () => {
    await database.pool.query('drop schema _localbase cascade');
    expect(await installIfChanged(database.pool, probe(3))).toBe(true);
    await installSessionGuard(database.pool);
    const { rows } = await database.pool.query<{ found: boolean }>(
      `select to_regprocedure('_localbase.require_live_session(uuid)') is not null as found`,
    );
    expect(rows[0]?.found).toBe(true);
  });
});

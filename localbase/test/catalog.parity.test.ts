// The schema cache after DDL: a reload asked for while an earlier load runs (the boot's, which
// started before the change) must answer with a snapshot read after the change. On PGlite and on
// PostgreSQL 15.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { Catalog, qualifiedKey } from '../src/rest/catalog.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
});

afterAll(async () => {
  await database?.close();
});

/**
 * The pool with its answers held back until `release()`: a load through it has read its snapshot
 * once `answered` reaches its query count, yet is still running. On PostgreSQL the load's queries
 * and the DDL run on different connections, so without this the DDL could commit before the load
 * has read anything, and "a load that started before the change" would not be one.
 */
function heldPool(pool: pg.Pool): { pool: pg.Pool; answered: () => number; release: () => void } {
  let answered = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = {
    query: async (...args: Parameters<pg.Pool['query']>) => {
      const result = await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
      answered++;
      await gate;
      return result;
    },
  } as unknown as pg.Pool;
  return { pool: held, answered: () => answered, release };
}

describe('Catalog.reload', () => {
  it('answers a reload asked for during a running load with a snapshot read after it', async () => {
    const gated = heldPool(database.pool);
    const catalog = new Catalog(gated.pool);
    const earlier = catalog.reload();
    await vi.waitUntil(() => gated.answered() === 2);
    await database.pool.query('create table public.catalog_probe (id int primary key)');
    const later = catalog.reload();
    gated.release();
    expect((await earlier).tables.has(qualifiedKey('public', 'catalog_probe'))).toBe(false);
    expect((await later).tables.has(qualifiedKey('public', 'catalog_probe'))).toBe(true);
    expect((await catalog.current()).tables.has(qualifiedKey('public', 'catalog_probe'))).toBe(true);
  });

  it('lets callers during one load share the next, and serves the first load to current()', async () => {
    const catalog = new Catalog(database.pool);
    const first = catalog.reload();
    expect(catalog.current()).toBeInstanceOf(Promise);
    const [a, b] = [catalog.reload(), catalog.reload()];
    expect(a).toBe(b);
    const [firstSnapshot, current, next] = await Promise.all([first, catalog.current(), a]);
    expect(current).toBe(firstSnapshot);
    expect(next).not.toBe(firstSnapshot);
  });
});

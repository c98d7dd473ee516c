// The schema cache after DDL: a reload asked for while an earlier load runs (the boot's, which
// started before the change) must answer with a snapshot read after the change. On PGlite and on
// PostgreSQL 15.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/database.ts';
import { openParityDatabase } from '../../testing/parity-database.ts';
import { Catalog, qualifiedKey } from '../src/rest/catalog.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
});

afterAll(async () => {
  await database?.close();
});

describe('Catalog.reload', () => {
  it('answers a reload asked for during a running load with a snapshot read after it', async () => {
    const catalog = new Catalog(database.pool);
    const earlier = catalog.reload();
    await database.pool.query('create table public.catalog_probe (id int primary key)');
    const later = catalog.reload();
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

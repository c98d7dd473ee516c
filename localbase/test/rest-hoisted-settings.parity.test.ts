// PostgREST's db-hoisted-tx-settings: a called function's `SET statement_timeout = ...` (and the
// other settings named in the list) is set for its request's whole transaction before the call, so
// that it governs the statement around the function too; its default_transaction_isolation is the
// level the transaction begins with. A setting not in the list stays the function's own, undone
// when the function returns. The function's owner may lengthen the caller's statement timeout this
// way: that is what hoisting is for.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openProductParityDatabase } from '#tools/testing/parity-database.ts';
import { overrideStatementTimeoutsForTests, parseDurationMs } from '../src/statement-timeouts.ts';
import { DEFAULT_HOISTED_SETTINGS, functionTransaction } from '../src/rest/calls.ts';
import type { RpcFunction } from '../src/rest/catalog.ts';
import { startLocalbase, type Localbase } from '../server.ts';
import { managementQuery } from './clients.ts';
import { rest, startFixtureStack } from './postgrest-fixture.ts';

const SCHEMA = `
create function public.isolation_seen() returns text language sql stable
  set default_transaction_isolation = 'serializable'
as $$ select current_setting('transaction_isolation') $$;
create function public.isolation_default() returns text language sql stable
as $$ select current_setting('transaction_isolation') $$;
create function public.teapot() returns int language sql stable
  set response.status = '418'
as $$ select 1 $$;
create function public.counted() returns bigint language sql stable
as $$ select count(*) from generate_series(1, 5000000) $$;
create function public.counted_longer() returns bigint language sql stable
  set statement_timeout = '60s'
as $$ select count(*) from generate_series(1, 5000000) $$;
create function public.counted_shorter() returns bigint language sql stable
  set statement_timeout = '50ms'
as $$ select count(*) from generate_series(1, 300000000) $$;`;

let standard: Localbase;
let custom: Localbase;
// The statement timeout is cut by the product's engine (PGlite's watchdog needs its worker) or by PostgreSQL.
let product: Localbase;
let productDatabase: Database;
let productDir: string;

beforeAll(async () => {
  productDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-hoisted-'));
  productDatabase = await openProductParityDatabase();
  [standard, custom, product] = await Promise.all([
    startFixtureStack(),
    startFixtureStack({ hoistedTxSettings: ['response.status'] }),
    startLocalbase({ dataDir: productDir, database: productDatabase, port: 0 }),
  ]);
  for (const stack of [standard, custom, product]) {
    const loaded = await managementQuery(stack, SCHEMA);
    expect(loaded.status, await loaded.text()).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([standard, custom].map((stack) => stack?.close()));
  await product?.close();
  await productDatabase?.close();
  await rm(productDir, { recursive: true, force: true });
});

describe('isolation level', () => {
  it("begins the call's transaction at the function's default_transaction_isolation, on GET and POST", async () => {
    for (const stack of [standard, custom]) {
      const read = await rest(stack, 'rpc/isolation_seen');
      expect(read.json).toBe('serializable');
      const posted = await rest(stack, 'rpc/isolation_seen', { method: 'POST', body: '{}' });
      expect(posted.json).toBe('serializable');
      const other = await rest(stack, 'rpc/isolation_default');
      expect(other.json).toBe('read committed');
    }
  });
});

describe('hoisted settings', () => {
  it('applies only the listed settings to the transaction: response.status when listed, not by default', async () => {
    const notHoisted = await rest(standard, 'rpc/teapot');
    expect(notHoisted.status).toBe(200);
    const hoisted = await rest(custom, 'rpc/teapot');
    expect(hoisted.status).toBe(418);
  });

  it("lets a function's statement_timeout lengthen the role's, and cuts the same work without it", async () => {
    const restore = overrideStatementTimeoutsForTests({ anon: 50 });
    try {
      const longer = await rest(product, 'rpc/counted_longer');
      expect(longer.status).toBe(200);
      expect(longer.json).toBe(5000000);
      const cut = await rest(product, 'rpc/counted');
      expect(cut.status).toBe(500);
      expect((cut.json as { code: string }).code).toBe('57014');
    } finally {
      restore();
    }
  }, 120_000);

  it("lets a function's statement_timeout shorten an unlimited one (service_role)", async () => {
    const cut = await rest(product, 'rpc/counted_shorter', { token: product.serviceRoleKey });
    expect(cut.status).toBe(500);
    expect((cut.json as { code: string }).code).toBe('57014');
  }, 120_000);
});

describe('functionTransaction and parseDurationMs', () => {
  const fn = (settings: [string, string][]): RpcFunction => ({
    schema: 'public',
    name: 'f',
    arguments: [],
    returns: 'scalar',
    returnTypeName: undefined,
    resultColumns: [],
    volatility: 'volatile',
    settings,
  });

  it('keeps the listed settings and a valid isolation level only', () => {
    const settings: [string, string][] = [
      ['search_path', ''],
      ['statement_timeout', '5s'],
      ['default_transaction_isolation', 'repeatable read'],
    ];
    expect(functionTransaction(fn(settings), DEFAULT_HOISTED_SETTINGS)).toEqual({
      settings: [settings[1], settings[2]],
      isolation: 'repeatable read',
    });
    expect(functionTransaction(fn([['default_transaction_isolation', 'bogus']]), [])).toEqual({
      settings: [],
      isolation: undefined,
    });
  });

  it('reads durations as PostgreSQL does, a bare number in milliseconds and 0 as none', () => {
    expect(parseDurationMs('250')).toBe(250);
    expect(parseDurationMs('5s')).toBe(5000);
    expect(parseDurationMs('2min')).toBe(120000);
    expect(parseDurationMs('0')).toBeNull();
    expect(parseDurationMs('soon')).toBeUndefined();
  });
});

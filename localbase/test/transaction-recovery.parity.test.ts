// A request whose statement fails before it reaches the server (a parameter that cannot be
// serialised) must not leave the connection in an aborted transaction: on PGlite the one session
// would then refuse every later request with 25P02.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { withOwnerTransaction, withRequestTransaction } from '../src/request-transaction.ts';
import { installSessionGuard } from '../src/session-guard.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
  await installSessionGuard(database.pool);
});

afterAll(async () => {
  await database?.close();
});

function unserialisable(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

const anon = {
  role: 'anon' as const,
  claims: { role: 'anon' as const },
  method: 'GET',
  path: '/',
  headers: {},
  readOnly: true,
};

describe('a statement that fails while its parameters are serialised', () => {
  it('is rolled back, and the next owner transaction runs', async () => {
    await expect(
      withOwnerTransaction(database.pool, async (client) => {
        await client.query('select 1');
        await client.query('select $1::jsonb', [unserialisable()]);
      }),
    ).rejects.toThrow(/circular/i);
    const rows = await withOwnerTransaction(
      database.pool,
      async (client) => (await client.query('select 1 as one')).rows,
    );
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('is rolled back inside a request transaction, and the next request runs', async () => {
    await expect(
      withRequestTransaction(database.pool, anon, (client) => client.query('select $1::jsonb', [unserialisable()])),
    ).rejects.toThrow(/circular/i);
    const rows = await withRequestTransaction(
      database.pool,
      anon,
      async (client) => (await client.query(`select current_user as who`)).rows,
    );
    expect(rows).toEqual([{ who: 'anon' }]);
  });
});

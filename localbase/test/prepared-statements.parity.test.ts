// The Data API's statements are prepared once per connection and reused, at most
// MAX_PREPARED_PER_CONNECTION of them, and the bookkeeping stays true when a console script
// deallocates them behind localbase's back. On PGlite and on PostgreSQL 15.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { startLocalbase, type Localbase } from '../server.ts';
import {
  forgetAllPrepared,
  MAX_PREPARED_PER_CONNECTION,
  preparedName,
  preparedQuery,
  trimPrepared,
} from '../src/prepared-statements.ts';
import { managementQuery, signedUpClient } from './clients.ts';

let database: Database;
let localbase: Localbase;
let dataDir: string;

beforeAll(async () => {
  database = await openParityDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-prepared-'));
  localbase = await startLocalbase({ dataDir, database, port: 0 });
});

afterAll(async () => {
  await localbase?.close();
  await database?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function preparedOnSession(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `select name from pg_prepared_statements where name like 'lb\\_%' order by name`,
  );
  return rows.map((row) => row.name);
}

/** A statement of its own shape per index, as requests of different shapes make. */
const shaped = (index: number) => `select $1::int + ${index} as n`;

async function withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await database.pool.connect();
  try {
    await client.query('deallocate all');
    await forgetAllPrepared(client);
    return await work(client);
  } finally {
    client.release();
  }
}

describe('prepared statements', () => {
  it('prepares a statement once and reuses it by the digest of its text', async () => {
    await withClient(async (client) => {
      const first = await client.query(preparedQuery(client, shaped(1), [41]));
      const second = await client.query(preparedQuery(client, shaped(1), [1]));
      expect([first.rows, second.rows]).toEqual([[{ n: 42 }], [{ n: 2 }]]);
      expect(await preparedOnSession(client)).toEqual([preparedName(shaped(1))]);
      expect(preparedName(shaped(1))).not.toBe(preparedName(shaped(2)));
    });
  });

  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} per connection, deallocating the least recently used`, async () => {
    await withClient(async (client) => {
      const total = MAX_PREPARED_PER_CONNECTION + 5;
      for (let index = 0; index < total; index++) await client.query(preparedQuery(client, shaped(index), [0]));
      // Statement 0 used again: now the most recent, so it survives the trim.
      await client.query(preparedQuery(client, shaped(0), [0]));
      expect(await preparedOnSession(client)).toHaveLength(total);

      await trimPrepared(client);
      const kept = await preparedOnSession(client);
      expect(kept).toHaveLength(MAX_PREPARED_PER_CONNECTION);
      expect(kept).toContain(preparedName(shaped(0)));
      for (const gone of [1, 2, 3, 4, 5]) expect(kept).not.toContain(preparedName(shaped(gone)));
      expect(kept).toContain(preparedName(shaped(6)));

      // A trimmed shape that comes back is prepared again, not refused as unknown.
      const again = await client.query(preparedQuery(client, shaped(3), [1]));
      expect(again.rows).toEqual([{ n: 4 }]);
    });
  });

  it('runs again after a script deallocated everything, once the bookkeeping is renewed', async () => {
    await withClient(async (client) => {
      await client.query(preparedQuery(client, shaped(7), [0]));
      await client.query('deallocate all');
      // pg still believes the statement exists and skips its Parse: Postgres does not know it.
      await expect(client.query(preparedQuery(client, shaped(7), [0]))).rejects.toMatchObject({ code: '26000' });
      await forgetAllPrepared(client);
      expect((await client.query(preparedQuery(client, shaped(7), [1]))).rows).toEqual([{ n: 8 }]);
    });
  });

  it('keeps answering API reads after a console script ran DEALLOCATE ALL', async () => {
    const { client: student } = await signedUpClient(localbase, 'prepared');
    const read = () => student.from('groups').select('id,name').eq('visibility', 'public').limit(1);
    expect((await read()).error).toBeNull();
    expect((await managementQuery(localbase, 'deallocate all')).status).toBe(201);
    const after = await read();
    expect(after.error).toBeNull();
    expect(after.status).toBe(200);
  });
});

// `supabase test db` in `npm test`: every file of supabase/tests, in pg_prove's order, is one vitest
// test on one connection to the test database (in the postgres project a database of this file's
// own on the run's PostgreSQL 15; in the pglite project an in-memory PGlite). The database has the
// migrations and pgTAP (which the CLI creates before it starts pg_prove) and nothing else: the
// first file installs the tests.* helpers and the last drops them, exactly as under the CLI. Test
// files isolate themselves (begin ... rollback); a failing file shows its failing lines.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase, parityEngine } from '#tools/testing/parity-database.ts';
import { runPgtapFile } from './run-file.ts';
import { readSuite } from './suite.ts';

const suite = readSuite();

async function hasTestsSchema(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ present: boolean }>(`select to_regnamespace('tests') is not null as present`);
  return rows[0]?.present ?? false;
}

describe(`pgTAP suite on ${parityEngine() === 'pglite' ? 'PGlite' : 'PostgreSQL 15'}`, () => {
  let database: Database;
  let client: pg.PoolClient;

  beforeAll(async () => {
    database = await openParityDatabase();
    client = await database.pool.connect();
  }, 120_000);

  afterAll(async () => {
    client?.release();
    await database?.close();
  });

  it('has test files between the setup and the teardown', () => {
    expect(suite.tests.length).toBeGreaterThan(0);
  });

  it('starts without the tests.* helpers: only the first file installs them', async () => {
    expect(await hasTestsSchema(client)).toBe(false);
  });

  for (const file of suite.all) {
    it(
      file.name,
      async () => {
        // A run filtered to some files (vitest -t) still needs the first one, as `supabase test db`
        // does when it is given single files.
        if (suite.tests.includes(file) && !(await hasTestsSchema(client))) {
          const setup = await runPgtapFile(client, suite.setup.sql, suite.setup.name);
          if (!setup.passed) expect.fail(`${suite.setup.name} failed:\n${setup.problems.join('\n')}`);
        }
        const run = await runPgtapFile(client, file.sql, file.name);
        if (!run.passed) expect.fail(`${file.name} failed:\n${run.problems.join('\n')}`);
        expect(run.report.results.length).toBeGreaterThan(0);
      },
      120_000,
    );
  }
});

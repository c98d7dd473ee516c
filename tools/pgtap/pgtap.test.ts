// Every pgtap/*.test.sql file is one vitest test on a shared in-memory PGlite. Files isolate
// themselves (begin ... rollback); a failing file shows its failing lines.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgtapDir } from '../db/paths.ts';
import { openTestDatabase, type TestDatabase } from '../testing/test-database.ts';
import { runPgtapFile } from './run-file.ts';

const files = readdirSync(pgtapDir).filter((name) => name.endsWith('.test.sql')).sort();

describe('pgTAP suite on PGlite', () => {
  let database: TestDatabase;
  let client: pg.PoolClient;

  beforeAll(async () => {
    database = await openTestDatabase();
    client = await database.pool.connect();
  }, 120_000);

  afterAll(async () => {
    client?.release();
    await database?.close();
  });

  it('has test files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(file, async () => {
      const run = await runPgtapFile(client, readFileSync(path.join(pgtapDir, file), 'utf8'), file);
      if (!run.passed) expect.fail(`${file} failed:\n${run.problems.join('\n')}`);
      expect(run.report.results.length).toBeGreaterThan(0);
    }, 120_000);
  }
});

// The pgTAP runner itself must fail a file for each way a file can be wrong.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { runPgtapFile } from './run-file.ts';
import { judgeTap, parseTap } from './tap.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

describe('TAP judgement', () => {
  it('passes a complete, planned, all-ok report', () => {
    const verdict = judgeTap(parseTap(['1..2', 'ok 1 - a', 'ok 2 - b']), { finished: true });
    expect(verdict).toEqual({ passed: true, problems: [] });
  });

  it('does not fail on a TODO result', () => {
    const verdict = judgeTap(parseTap(['1..1', 'not ok 1 - later # TODO not built yet']), { finished: true });
    expect(verdict.passed).toBe(true);
  });

  it('fails without a plan', () => {
    const verdict = judgeTap(parseTap(['ok 1 - a']), { finished: true });
    expect(verdict.problems).toContain('no plan: the file never called plan(N)');
  });

  it('keeps multi-line diagnostics with the failing result', () => {
    const report = parseTap([
      '1..1',
      'not ok 1 - wrong\n#   Failed test 1: "wrong"\n#         have: 2\n#         want: 3',
    ]);
    expect(report.results[0]?.diagnostics).toHaveLength(3);
  });
});

describe('pgTAP runner on the test database', () => {
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

  it('passes a correct file', async () => {
    const run = await runPgtapFile(client, fixture('passing.sql'), 'passing.sql');
    expect(run.problems).toEqual([]);
    expect(run.passed).toBe(true);
  });

  it('fails a deliberately broken assertion and shows its lines', async () => {
    const run = await runPgtapFile(client, fixture('broken-assertion.sql'), 'broken-assertion.sql');
    expect(run.passed).toBe(false);
    expect(run.problems.join('\n')).toContain('not ok 2 - this one is deliberately wrong');
    expect(run.problems.join('\n')).toMatch(/want: 3/);
  });

  it('fails a plan mismatch', async () => {
    const run = await runPgtapFile(client, fixture('plan-mismatch.sql'), 'plan-mismatch.sql');
    expect(run.passed).toBe(false);
    expect(run.problems.join('\n')).toContain('planned 3 tests but ran 2');
  });

  it('fails an SQL error, naming the file line and keeping earlier output', async () => {
    const run = await runPgtapFile(client, fixture('sql-error.sql'), 'sql-error.sql');
    expect(run.passed).toBe(false);
    expect(run.problems[0]).toMatch(/SQL error at sql-error\.sql:4: relation "public\.no_such_table" does not exist/);
    expect(run.output).toContain('ok 1 - runs before the error');
  });

  it('fails a file that never calls finish()', async () => {
    const run = await runPgtapFile(client, fixture('missing-finish.sql'), 'missing-finish.sql');
    expect(run.passed).toBe(false);
    expect(run.problems.join('\n')).toContain('finish() was never called');
  });

  it('leaves the session usable after a failing file', async () => {
    await runPgtapFile(client, fixture('sql-error.sql'), 'sql-error.sql');
    const { rows } = await client.query<{ user: string }>('select current_user as user');
    expect(rows[0]?.user).toBe('postgres');
    const again = await runPgtapFile(client, fixture('passing.sql'), 'passing.sql');
    expect(again.passed).toBe(true);
  });
});

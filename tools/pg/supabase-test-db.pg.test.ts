// How `supabase test db` runs the suite, checked on PostgreSQL 15 with pg_prove itself: nothing but
// the first file provides the tests.* helpers, the helpers must be committed because every file
// has its own connection, a run leaves neither helpers nor pgTAP behind, and a run that was
// interrupted before its teardown does not break the next one.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, supabaseTestsDir } from '#db/paths.ts';
import { readSuite } from '#pgtap/suite.ts';
import { startCluster, type Cluster } from './cluster.ts';
import { supabaseTestDb } from './supabase-test-db.ts';

const run = promisify(execFile);
const suite = readSuite();
// Any test file that acts as people will do; this one is short.
const testFile = path.join(supabaseTestsDir, 'database', '12-community-owner-cells.test.sql');
const setupFile = suite.setup.path;
const teardownFile = suite.teardown.path;

describe('supabase test db, the way the CLI runs pg_prove', () => {
  let cluster: Cluster;
  let scratch: string;

  async function leftovers(): Promise<{ tests: boolean; pgtap: boolean }> {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ tests: boolean; pgtap: boolean }>(
        `select to_regnamespace('tests') is not null as tests,
                exists (select 1 from pg_extension where extname = 'pgtap') as pgtap`,
      );
      return rows[0] as { tests: boolean; pgtap: boolean };
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    cluster = await startCluster();
    scratch = await mkdtemp(path.join(os.tmpdir(), 'studyhall-tests-'));
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('proves on the PostgreSQL major version supabase/config.toml asks the CLI for', async () => {
    const config = parse(await readFile(path.join(repoRoot, 'supabase', 'config.toml'), 'utf8')) as {
      db: { major_version: number };
    };
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ major: number }>(
        `select current_setting('server_version_num')::int / 10000 as major`,
      );
      expect(rows[0]?.major).toBe(config.db.major_version);
    } finally {
      await client.end();
    }
  });

  it('runs the files in the order the runners here use: pg_prove --dry lists them so', async () => {
    const { stdout } = await run('pg_prove', ['--dry', '--ext', '.pg', '--ext', '.sql', '-r', supabaseTestsDir]);
    const listed = stdout
      .split('\n')
      .filter((line) => line.startsWith(`${supabaseTestsDir}/`))
      .map((line) => line.slice(supabaseTestsDir.length + 1));
    expect(listed).toEqual(suite.all.map((file) => file.name));
  });

  it('fails a test file run without the first file: no side channel installs the helpers', async () => {
    const run = await supabaseTestDb(cluster.url, { paths: [testFile], output: 'capture' });
    expect(run.proveExitCode).not.toBe(0);
    expect(run.output).toMatch(/schema "tests" does not exist|function tests\.create_user\(unknown\) does not exist/);
  }, 120_000);

  it('passes setup, a test file and teardown, and leaves neither the helpers nor pgTAP behind', async () => {
    const run = await supabaseTestDb(cluster.url, { paths: [setupFile, testFile, teardownFile], output: 'capture' });
    expect(run.output).toMatch(/Result: PASS/);
    expect(run.proveExitCode).toBe(0);
    expect(run.createdPgtap).toBe(true);
    expect(run.dropError).toBeUndefined();
    expect(await leftovers()).toEqual({ tests: false, pgtap: false });
  }, 120_000);

  it('needs the helpers committed: rolled back in the first file, the next file (own connection) cannot see them', async () => {
    const rolledBack = path.join(scratch, 'rolled-back');
    await mkdir(path.join(rolledBack, 'database'), { recursive: true });
    // The whole setup file inside one transaction, which its closing `rollback` undoes.
    await writeFile(path.join(rolledBack, suite.setup.name), `begin;\n${suite.setup.sql}`);
    await copyFile(testFile, path.join(rolledBack, 'database', path.basename(testFile)));
    await copyFile(teardownFile, path.join(rolledBack, suite.teardown.name));
    const run = await supabaseTestDb(cluster.url, { paths: [rolledBack], output: 'capture' });
    expect(run.output).toMatch(/000-setup-tests-hooks\.sql \.+ ok/);
    expect(run.output).toMatch(/12-community-owner-cells\.test\.sql \.+\s+(Failed|Dubious)/);
    expect(run.proveExitCode).not.toBe(0);
  }, 120_000);

  it('passes a run that follows one interrupted before its teardown (helpers still there)', async () => {
    const interrupted = await supabaseTestDb(cluster.url, { paths: [setupFile], output: 'capture' });
    expect(interrupted.proveExitCode).toBe(0);
    expect((await leftovers()).tests).toBe(true);
    const again = await supabaseTestDb(cluster.url, { paths: [setupFile, testFile, teardownFile], output: 'capture' });
    expect(again.output).toMatch(/Result: PASS/);
    expect(again.proveExitCode).toBe(0);
    expect((await leftovers()).tests).toBe(false);
  }, 120_000);
});

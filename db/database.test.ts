// The embedded database as an operator meets it (PostgreSQL by default, PGlite when asked): one
// process per DATA_DIR, clean shutdown on a signal, migrate as a no-op when up to date, and reset
// from scratch.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockPathFor } from './data-dir-lock.ts';
import { openDatabase } from './database.ts';
import { MIGRATIONS_SCHEMA, MIGRATIONS_TABLE, migrationsUpToDate, PLATFORM_TABLE, platformDigest } from './migrate.ts';
import { repoRoot } from './paths.ts';
import { readPlatformFiles } from './sql-files.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { testDatabaseSnapshot } from '#tools/testing/test-database.ts';

function runTs(script: string, args: string[], dataDir: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`fixture exited early with ${code}`)));
  });
}

describe('the embedded database in DATA_DIR', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await makeReachableTempDir('studyhall-db-');
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a second process with a message naming the lock, and keeps the data readable', async () => {
    const holder = runTs('db/fixtures/hold-open.ts', [], dataDir);
    const holderDone = finished(holder);
    try {
      await ready(holder);

      const second = await finished(runTs('db/cli.ts', ['migrate'], dataDir));
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(lockPathFor(dataDir));
      expect(second.stderr).toMatch(/in use by another studyhall process/);

      await expect(openDatabase({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      holder.kill('SIGTERM');
    }
    expect((await holderDone).code).toBe(0);
    // SIGTERM stopped PostgreSQL cleanly before the process exited: a cluster shut down has no
    // postmaster.pid (one killed with the process would keep running, and keep it).
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const database = await openDatabase({ dataDir });
    try {
      const { rows } = await database.pool.query(`select id from storage.buckets where id = 'lock-test'`);
      expect(rows).toHaveLength(1);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('migrates nothing when the schema is up to date', async () => {
    const run = await finished(runTs('db/cli.ts', ['migrate'], dataDir));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/is up to date/);
  }, 120_000);

  it('refuses a DATABASE_URL that is not a Postgres URL before touching anything, one line per problem', async () => {
    const run = await finished(
      runTs('db/cli.ts', ['migrate'], dataDir, { DATABASE_URL: 'mysql://localhost/studyhall' }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'db: config: DATABASE_URL: must be a postgres:// or postgresql:// URL',
    ]);
  }, 60_000);

  it('starts PostgreSQL with its settings given at start, writing none into DATA_DIR', async () => {
    const database = await openDatabase({ dataDir });
    try {
      expect(database.kind).toBe('postgres');
      const { rows } = await database.pool.query<{ shared_buffers: string; source: string }>(
        `select current_setting('shared_buffers') as shared_buffers, source from pg_settings where name = 'shared_buffers'`,
      );
      expect(rows[0]).toEqual({ shared_buffers: '128MB', source: 'command line' });
      const autoConf = await readFile(path.join(dataDir, 'postgres', 'postgresql.auto.conf'), 'utf8').catch(() => '');
      expect(autoConf).not.toMatch(/shared_buffers/);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('starts PGlite (LOCALBASE_ENGINE=pglite) with a 32 MB buffer pool given at start, naming its version', async () => {
    const pgliteData = await mkdtemp(path.join(os.tmpdir(), 'studyhall-db-pglite-'));
    try {
      const database = await openDatabase({
        dataDir: pgliteData,
        engine: 'pglite',
        pglite: { loadDataDir: await testDatabaseSnapshot() },
      });
      try {
        expect(database.engineName).toMatch(/^PGlite \d+\.\d+\.\d+ \(PostgreSQL \d+\.\d+\)$/);
        const { rows } = await database.pool.query<{ shared_buffers: string; source: string }>(
          `select current_setting('shared_buffers') as shared_buffers, source from pg_settings where name = 'shared_buffers'`,
        );
        expect(rows[0]).toEqual({ shared_buffers: '32MB', source: 'command line' });
        const autoConf = await readFile(path.join(pgliteData, 'pgdata', 'postgresql.auto.conf'), 'utf8').catch(
          () => '',
        );
        expect(autoConf).not.toMatch(/shared_buffers/);
      } finally {
        await database.close();
      }
    } finally {
      await rm(pgliteData, { recursive: true, force: true });
    }
  }, 120_000);

  it('skips the platform stand-in on a later boot while its files are unchanged', async () => {
    const database = await openDatabase({ dataDir });
    try {
      expect(database.migrations).toMatchObject({ applied: [], platformApplied: false });
    } finally {
      await database.close();
    }
  }, 120_000);

  it('answers "up to date" only when exactly the migration files are recorded, in order', async () => {
    const database = await openDatabase({ dataDir, migrate: false });
    const client = await database.pool.connect();
    const table = `${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`;
    try {
      expect(await migrationsUpToDate(client)).toBe(true);
      await client.query('begin');
      // The last migration pending.
      await client.query(`delete from ${table} where id = (select max(id) from ${table})`);
      expect(await migrationsUpToDate(client)).toBe(false);
      await client.query('rollback');
      await client.query('begin');
      // One recorded that no file has (a database from a newer checkout).
      await client.query(`insert into ${table} (name, run_on) values ('29991231000000_from_the_future', now())`);
      expect(await migrationsUpToDate(client)).toBe(false);
      await client.query('rollback');
      await client.query('begin');
      // The same names in another order.
      await client.query(
        `update ${table} set run_on = run_on - interval '1 day' where id = (select max(id) from ${table})`,
      );
      expect(await migrationsUpToDate(client)).toBe(false);
      await client.query('rollback');
      await client.query('begin');
      await client.query(`alter table ${table} rename to renamed_away`);
      expect(await migrationsUpToDate(client)).toBe(false);
      await client.query('rollback');
      expect(await migrationsUpToDate(client)).toBe(true);
    } finally {
      client.release();
      await database.close();
    }
  }, 120_000);

  it("applies the platform stand-in again when its files changed, and keeps the migrations' revokes", async () => {
    const before = await openDatabase({ dataDir });
    try {
      // What a checkout with other platform files would find recorded.
      await before.pool.query(`update ${MIGRATIONS_SCHEMA}.${PLATFORM_TABLE} set digest = 'an older platform'`);
    } finally {
      await before.close();
    }
    const database = await openDatabase({ dataDir });
    try {
      expect(database.migrations).toMatchObject({ applied: [], platformApplied: true });
      const { rows } = await database.pool.query<{ anon_reads_backups: boolean; anon_writes_tasks: boolean }>(
        `select has_table_privilege('anon', 'public.user_backups', 'select') as anon_reads_backups,
                has_table_privilege('anon', 'public.user_tasks', 'insert') as anon_writes_tasks`,
      );
      expect(rows[0]).toEqual({ anon_reads_backups: false, anon_writes_tasks: false });
      const recorded = await database.pool.query(`select digest from ${MIGRATIONS_SCHEMA}.${PLATFORM_TABLE}`);
      expect(recorded.rows).toEqual([{ digest: platformDigest(await readPlatformFiles()) }]);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('db:reset recreates the database from scratch', async () => {
    const run = await finished(runTs('db/cli.ts', ['reset'], dataDir));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/applied \d+ migration\(s\)/);
    const database = await openDatabase({ dataDir });
    try {
      const { rows } = await database.pool.query(`select id from storage.buckets where id = 'lock-test'`);
      expect(rows).toHaveLength(0);
      const users = await database.pool.query('select count(*)::int as n from public.users');
      expect(users.rows[0]?.n).toBe(0);
    } finally {
      await database.close();
    }
  }, 120_000);
});

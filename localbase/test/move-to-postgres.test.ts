// `npm run db:move-to-postgres` on a DATA_DIR that a school ran on PGlite: users with passwords and
// sessions, groups, chat, push subscriptions, a stored file, rows in every table of `public`. After
// the move the server runs on the embedded PostgreSQL with all of it: the users sign in with their
// passwords, every table holds what it held, the file is served. Refused while a server holds the
// DATA_DIR, and safe to run again after a run that failed half-way.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '#db/data-dir-lock.ts';
import { openDatabase } from '#db/database.ts';
import { clusterDir } from '#db/embedded-postgres.ts';
import { pgliteDir } from '#db/engine-choice.ts';
import { repoRoot } from '#db/paths.ts';
import { seedWorld } from '#tools/security/world.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { testDatabaseSnapshot } from '#tools/testing/test-database.ts';
import { installLocalbaseObjects, startLocalbase, type Localbase } from '../server.ts';

const PASSWORD = 'a long walk by the harbour 42';
const FILE = '{"notes": "chapter 3"}';
let temp: string;
let dataDir: string;
let before: Map<string, number>;
let sequencesBefore: Record<string, string | null>;
let ada: string;

/** Row counts of every table in the schemas the platform and migrations create. */
async function counts(query: (sql: string) => Promise<{ rows: { name: string; n: number }[] }>) {
  const tables = await query(
    `select format('%I.%I', table_schema, table_name) as name, 0 as n from information_schema.tables
     where table_type = 'BASE TABLE' and table_schema in ('public', 'private', 'auth', 'storage', 'realtime', '_localbase', 'studyhall_meta')
     and (table_schema, table_name) <> ('_localbase', 'installed') order by 1`,
  );
  const result = new Map<string, number>();
  for (const { name } of tables.rows) {
    const { rows } = await query(`select '${name}' as name, count(*)::int as n from ${name}`);
    result.set(name, rows[0]?.n ?? -1);
  }
  return result;
}

/** Each sequence's last value (null: never used). */
async function sequences(query: (sql: string) => Promise<{ rows: { name: string; value: string | null }[] }>) {
  const { rows } = await query(
    `select format('%I.%I', schemaname, sequencename) as name, last_value::text as value from pg_sequences
     where schemaname in ('public', 'private', 'auth', 'storage', 'realtime', '_localbase', 'studyhall_meta') order by 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.value]));
}

async function api(localbase: Localbase, method: string, route: string, body?: unknown, token?: string) {
  const response = await fetch(`${localbase.url}${route}`, {
    method,
    headers: {
      apikey: localbase.anonKey,
      authorization: `Bearer ${token ?? localbase.anonKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.text()) || '{}' };
}

function runMove(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'localbase/move-to-postgres.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  temp = await makeReachableTempDir('studyhall-move-');
  dataDir = path.join(temp, 'data');
  // A DATA_DIR as an older studyhall left it: PGlite in DATA_DIR/pgdata.
  const database = await openDatabase({
    dataDir,
    engine: 'pglite',
    pglite: { loadDataDir: await testDatabaseSnapshot() },
  });
  const localbase = await startLocalbase({ dataDir, database, port: 0 });
  try {
    const signUp = await api(localbase, 'POST', '/auth/v1/signup', { email: 'ada@school.test', password: PASSWORD });
    expect(signUp.status, signUp.body).toBe(200);
    const session = JSON.parse(signUp.body) as { access_token: string; user: { id: string } };
    ada = session.user.id;
    const upload = await fetch(`${localbase.url}/storage/v1/object/backups/${ada}/notes.json`, {
      method: 'POST',
      headers: {
        apikey: localbase.anonKey,
        authorization: `Bearer ${session.access_token}`,
        'content-type': 'application/json',
      },
      body: FILE,
    });
    expect(upload.status, await upload.text()).toBe(200);
    const client = await database.pool.connect();
    try {
      await seedWorld(client);
    } finally {
      client.release();
    }
    await installLocalbaseObjects(database.pool);
    before = await counts((sql) => database.pool.query(sql));
    sequencesBefore = await sequences((sql) => database.pool.query(sql));
  } finally {
    await localbase.close();
    await database.close();
  }
}, 240_000);

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('db:move-to-postgres', () => {
  it('refuses in one line while a server holds the DATA_DIR, moving nothing', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', 'db/fixtures/hold-lock.ts'], {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    try {
      await new Promise<void>((resolve) =>
        holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()),
      );
      const run = await runMove();
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^db:move-to-postgres: refused: DATA_DIR .* is in use by another studyhall process \(pid \d+\)/,
        ),
      ]);
      expect(existsSync(clusterDir(dataDir))).toBe(false);
    } finally {
      holder.kill('SIGKILL');
      await gone;
    }
  }, 60_000);

  it('moves everything after a failed run, and the users sign in on PostgreSQL with their passwords', async () => {
    // What a run that died half-way leaves: a half-filled new cluster folder, never the cluster itself.
    await mkdir(`${clusterDir(dataDir)}.moving`, { recursive: true });
    await writeFile(path.join(`${clusterDir(dataDir)}.moving`, 'PG_VERSION'), '15\n');

    const run = await runMove();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/done: \d+ rows in \d+ tables, every count and checksum equal/);
    expect(existsSync(clusterDir(dataDir))).toBe(true);
    expect(existsSync(`${clusterDir(dataDir)}.moving`)).toBe(false);
    // The PGlite files stay until the admin removes them.
    expect(existsSync(path.join(pgliteDir(dataDir), 'PG_VERSION'))).toBe(true);

    const localbase = await startLocalbase({ dataDir, port: 0 });
    try {
      expect(localbase.database.kind).toBe('postgres');
      expect(localbase.database.engineName).toMatch(/\(embedded\)$/);
      const after = await counts((sql) => localbase.database.pool.query(sql));
      expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
      expect(before.get('public.group_chat_messages')).toBeGreaterThan(0);
      expect(before.get('auth.sessions')).toBeGreaterThan(0);
      expect(before.get('storage.objects')).toBeGreaterThan(0);
      // Sequences moved too: the next id continues where PGlite's stopped.
      expect(await sequences((sql) => localbase.database.pool.query(sql))).toEqual(sequencesBefore);

      const signIn = await api(localbase, 'POST', '/auth/v1/token?grant_type=password', {
        email: 'ada@school.test',
        password: PASSWORD,
      });
      expect(signIn.status, signIn.body).toBe(200);
      const session = JSON.parse(signIn.body) as { access_token: string; user: { id: string } };
      expect(session.user.id).toBe(ada);
      const wrong = await api(localbase, 'POST', '/auth/v1/token?grant_type=password', {
        email: 'ada@school.test',
        password: `${PASSWORD}!`,
      });
      expect(wrong.status).toBe(400);
      const file = await fetch(`${localbase.url}/storage/v1/object/backups/${ada}/notes.json`, {
        headers: { apikey: localbase.anonKey, authorization: `Bearer ${session.access_token}` },
      });
      expect(file.status).toBe(200);
      expect(await file.text()).toBe(FILE);
    } finally {
      await localbase.close();
    }
  }, 240_000);

  it('refuses to move again once the cluster exists', async () => {
    const run = await runMove();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused: .*postgres exists already: the server uses it, and nothing was moved/);
  }, 60_000);

  it('takes the lock itself: a move in this process while it holds the lock is refused', async () => {
    const unlock = await lockDataDir(dataDir);
    try {
      const { moveToPostgres } = await import('#db/move-to-postgres.ts');
      await expect(moveToPostgres({ dataDir })).rejects.toThrow(/in use by another studyhall process/);
    } finally {
      await unlock();
    }
  });
});

// `npm run backend` as a process: it prints the status block, writes DATA_DIR/status.json (0600)
// and keys.json (0600), names its database engine (the embedded PostgreSQL) and its DB URL, reuses
// the keys on the next boot and exits 0 on SIGTERM, with PostgreSQL stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { z } from 'zod';
import { passwordFile } from '#db/embedded-postgres.ts';
import { repoRoot } from '#db/paths.ts';
import { dbUrlOf, statusBlock } from '../status-block.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';

const statusSchema = z.object({
  api_url: z.string().url(),
  anon_key: z.string(),
  service_role_key: z.string(),
  access_token: z.string().startsWith('sbp_'),
  data_dir: z.string(),
  engine: z.string(),
  db_url: z.string().optional(),
});

let dataDir: string;

beforeAll(async () => {
  dataDir = await makeReachableTempDir('localbase-main-');
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts `npm run backend`'s entry point and resolves once the status block is printed. */
function startBackend(): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'localbase/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, LOCALBASE_PORT: '0', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('data dir:') && output.includes('database:')) resolve({ child, output });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`backend exited early (${code}): ${output}`)));
  });
}

function stopBackend(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm run backend', () => {
  it('prints the status block, writes status.json with mode 0600, serves, and exits 0 on SIGTERM; keys survive a restart', async () => {
    const first = await startBackend();
    const status = statusSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'status.json'), 'utf8')));
    for (const value of [
      status.api_url,
      status.anon_key,
      status.service_role_key,
      status.access_token,
      status.data_dir,
    ]) {
      expect(first.output).toContain(value);
    }
    expect((await stat(path.join(dataDir, 'status.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, 'keys.json'))).mode & 0o777).toBe(0o600);
    expect(new URL(status.api_url).hostname).toBe('127.0.0.1');
    const health = await fetch(`${status.api_url}/auth/v1/health`, { headers: { apikey: status.anon_key } });
    expect(health.status).toBe(200);
    expect(status.engine).toMatch(/^PostgreSQL 15\.\d+ \(embedded\)$/);
    expect(first.output).toContain(`          engine: ${status.engine}`);

    // The DB URL, as `supabase start` prints it, with the cluster's own password: one line, right
    // after the API URL, and that password nowhere else in what the terminal shows.
    const password = (await readFile(passwordFile(dataDir), 'utf8')).trim();
    const dbUrl = /^ {10}DB URL: (\S+)$/m.exec(first.output)?.[1];
    expect(dbUrl).toMatch(new RegExp(`^postgresql://postgres:${password}@127\\.0\\.0\\.1:\\d+/postgres$`));
    expect(first.output).toMatch(/ API URL: \S+\n {10}DB URL: /);
    expect(first.output.split(password)).toHaveLength(2);
    expect(status.db_url).toBe(dbUrl);
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string; version: string }>(
        `select current_user as user, current_setting('server_version') as version`,
      );
      expect(rows).toEqual([{ user: 'postgres', version: expect.stringMatching(/^15\./) }]);
    } finally {
      await client.end();
    }
    expect(await stopBackend(first.child)).toBe(0);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startBackend();
    const again = statusSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'status.json'), 'utf8')));
    expect(again.anon_key).toBe(status.anon_key);
    expect(again.service_role_key).toBe(status.service_role_key);
    expect(again.access_token).toBe(status.access_token);
    expect(await stopBackend(second.child)).toBe(0);
  }, 120_000);
});

describe("the status block's DB URL", () => {
  const running = { host: '127.0.0.1', port: 41234, user: 'postgres', password: 'a1b2', database: 'postgres' };

  it('is the embedded PostgreSQL’s, with its password', () => {
    expect(dbUrlOf({ postgres: running as never })).toBe('postgresql://postgres:a1b2@127.0.0.1:41234/postgres');
  });

  it('is not there for PGlite or a DATABASE_URL (no embedded PostgreSQL)', () => {
    expect(dbUrlOf({})).toBeUndefined();
    const block = statusBlock({
      api_url: 'http://127.0.0.1:54321',
      anon_key: 'anon',
      service_role_key: 'service',
      access_token: 'sbp_token',
      management_api_url: 'http://127.0.0.1:54321',
      data_dir: '/data',
      database: '/data/pgdata',
      engine: 'PGlite 0.5.14 (PostgreSQL 18.6)',
    });
    expect(block).not.toContain('DB URL');
  });
});

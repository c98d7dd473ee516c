// `npm run backend` as a process: it prints the status block, writes DATA_DIR/status.json (0600)
// and keys.json (0600), names its database engine (the embedded PostgreSQL), reuses the keys on
// the next boot and exits 0 on SIGTERM, with PostgreSQL stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from '#db/paths.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';

const statusSchema = z.object({
  api_url: z.string().url(),
  anon_key: z.string(),
  service_role_key: z.string(),
  access_token: z.string().startsWith('sbp_'),
  data_dir: z.string(),
  engine: z.string(),
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

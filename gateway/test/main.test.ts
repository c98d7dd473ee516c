// `npm start` as a process: a bad configuration stops it with one line per problem; with
// BACKEND_URL it fronts that backend (no localbase), prints its URLs and stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { freePort } from '#tools/testing/free-port.ts';
import { makeTempDir } from './helpers.ts';

const mainFile = path.join(repoRoot, 'gateway', 'src', 'main.ts');

function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', mainFile], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (text: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes(text)) {
      if (Date.now() > deadline) throw new Error(`no "${text}" in output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, exited, waitFor, output: () => output };
}

describe('npm start (gateway/src/main.ts)', () => {
  it('stops with exit code 1 and one line per configuration problem', async () => {
    const main = startMain({ PORT: 'eighty', ENABLE_ADMIN_MODE: 'maybe', BACKEND_URL: 'http://127.0.0.1:9' });
    expect(await main.exited).toBe(1);
    const lines = main.output().trim().split('\n');
    expect(lines).toEqual([
      'studyhall: config: PORT: must be a port number',
      'studyhall: config: ENABLE_ADMIN_MODE: must be true or false',
      'studyhall: config: BACKEND_ANON_KEY: is required when BACKEND_URL is set',
    ]);
  }, 30_000);

  it('fronts BACKEND_URL without starting localbase, prints its URLs and stops on SIGTERM', async () => {
    const backend = http.createServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    const temp = await makeTempDir('main');
    // From the kernel: a random port could be one an outgoing connection already holds.
    const port = await freePort();
    const main = startMain({
      PORT: String(port),
      HOST: '127.0.0.1',
      BACKEND_URL: backendUrl,
      BACKEND_ANON_KEY: 'anon',
      LOG_DIR: temp.dir,
      LOG_LEVEL: 'warn',
    });
    try {
      await main.waitFor(`studyhall: logs    ${temp.dir}`);
      expect(main.output()).toContain(`studyhall: app     http://127.0.0.1:${port} (listening on 127.0.0.1)\n`);
      expect(main.output()).toContain(`studyhall: backend ${backendUrl}\n`);
      const health = await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
      expect(health).toMatchObject({ ok: true, backend: { status: 'up' } });
      main.child.kill('SIGTERM');
      expect(await main.exited).toBe(0);
    } finally {
      main.child.kill('SIGKILL');
      backend.close();
      await temp.remove();
    }
  }, 30_000);
});

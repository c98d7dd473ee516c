// One environment schema for every entry point: each reads only the variables it picks, by the
// same rules, and `npm start`, `npm run backend` and `npm run db:migrate` refuse the same bad
// value with the same sentence before touching any data.
import { spawn } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './paths.ts';
import { LOG_LEVELS, readEnv } from './env.ts';

function run(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, script), ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('readEnv', () => {
  it('reads only the picked variables: a bad value elsewhere is not its concern', () => {
    const result = readEnv({ PORT: 'eighty', DATA_DIR: '/srv/studyhall' }, ['DATA_DIR', 'DATABASE_URL']);
    expect(result).toEqual({ ok: true, value: { DATA_DIR: '/srv/studyhall', DATABASE_URL: undefined } });
  });

  it("knows exactly pino's levels", () => {
    expect([...LOG_LEVELS].sort()).toEqual([...Object.keys(pino.levels.values), 'silent'].sort());
    for (const level of LOG_LEVELS)
      expect(readEnv({ LOG_LEVEL: level }, ['LOG_LEVEL'])).toEqual({ ok: true, value: { LOG_LEVEL: level } });
    expect(readEnv({ LOG_LEVEL: 'INFO' }, ['LOG_LEVEL']).ok).toBe(false);
  });

  it('reports every bad value of the picked variables, one line each', () => {
    const result = readEnv({ DATA_DIR: '', DATABASE_URL: 'localhost:5432', LOCALBASE_PORT: '-1' }, [
      'DATA_DIR',
      'DATABASE_URL',
      'LOCALBASE_PORT',
    ]);
    expect(result).toEqual({
      ok: false,
      problems: [
        'DATABASE_URL: must be a postgres:// or postgresql:// URL',
        'LOCALBASE_PORT: must be between 0 and 65535',
      ],
    });
  });

  it('leaves the engine to the platform when unset, and refuses an engine it does not know', () => {
    const names = ['LOCALBASE_ENGINE'] as const;
    expect(readEnv({}, names)).toEqual({ ok: true, value: { LOCALBASE_ENGINE: undefined } });
    expect(readEnv({ LOCALBASE_ENGINE: 'pglite' }, names)).toEqual({ ok: true, value: { LOCALBASE_ENGINE: 'pglite' } });
    expect(readEnv({ LOCALBASE_ENGINE: ' postgres ' }, names)).toEqual({
      ok: true,
      value: { LOCALBASE_ENGINE: 'postgres' },
    });
    expect(readEnv({ LOCALBASE_ENGINE: 'sqlite' }, names)).toEqual({
      ok: false,
      problems: ['LOCALBASE_ENGINE: must be one of postgres, pglite'],
    });
  });

  it("reads the Data API's PostgREST switches off by default, and refuses what PostgREST would", () => {
    const names = ['LOCALBASE_API_AGGREGATES', 'LOCALBASE_API_PLANS', 'LOCALBASE_API_TX_END'] as const;
    expect(readEnv({}, names)).toEqual({
      ok: true,
      value: { LOCALBASE_API_AGGREGATES: false, LOCALBASE_API_PLANS: false, LOCALBASE_API_TX_END: 'commit' },
    });
    expect(
      readEnv(
        { LOCALBASE_API_AGGREGATES: 'true', LOCALBASE_API_PLANS: '1', LOCALBASE_API_TX_END: 'rollback-allow-override' },
        names,
      ),
    ).toEqual({
      ok: true,
      value: {
        LOCALBASE_API_AGGREGATES: true,
        LOCALBASE_API_PLANS: true,
        LOCALBASE_API_TX_END: 'rollback-allow-override',
      },
    });
    expect(readEnv({ LOCALBASE_API_PLANS: 'on', LOCALBASE_API_TX_END: 'abort' }, names)).toEqual({
      ok: false,
      problems: [
        'LOCALBASE_API_PLANS: must be true or false',
        'LOCALBASE_API_TX_END: must be one of commit, commit-allow-override, rollback, rollback-allow-override',
      ],
    });
  });
});

describe('the entry points share the rules', () => {
  it('npm start, npm run backend and npm run db:migrate refuse the same DATABASE_URL with the same sentence', async () => {
    const env = { DATABASE_URL: 'mysql://localhost/studyhall', DATA_DIR: path.join(repoRoot, '.tmp', 'never-created') };
    const [gateway, backend, db] = await Promise.all([
      run('gateway/src/main.ts', [], env),
      run('localbase/main.ts', [], env),
      run('db/cli.ts', ['migrate'], env),
    ]);
    const sentence = 'config: DATABASE_URL: must be a postgres:// or postgresql:// URL';
    expect({ code: gateway.code, lines: gateway.stderr.trim().split('\n') }).toEqual({
      code: 1,
      lines: [`studyhall: ${sentence}`],
    });
    expect({ code: backend.code, lines: backend.stderr.trim().split('\n') }).toEqual({
      code: 1,
      lines: [`localbase: ${sentence}`],
    });
    expect({ code: db.code, lines: db.stderr.trim().split('\n') }).toEqual({ code: 2, lines: [`db: ${sentence}`] });
  }, 60_000);

  it('npm run backend refuses a bad LOCALBASE_PORT as the gateway does', async () => {
    const backend = await run('localbase/main.ts', [], { LOCALBASE_PORT: '70000' });
    expect(backend.code).toBe(1);
    expect(backend.stderr.trim()).toBe('localbase: config: LOCALBASE_PORT: must be between 0 and 65535');
  }, 60_000);
});

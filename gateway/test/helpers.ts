// Shared fixtures for the gateway tests: a temp checkout (git repo with web/ and package.json), a
// config, and a gateway built on them. Nothing here touches the real repository's files.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';
import { makeReachableTempDir } from '#tools/testing/reachable-temp-dir.ts';
import { buildGateway, type Gateway, type GatewayOptions } from '../src/app.ts';
import type { BackendTarget } from '../src/backend/backend-client.ts';
import type { GatewayConfig } from '../src/config.ts';

/** Deadlines for tests against a real localbase on a busy machine (the real ones: deadlines.test.ts). */
export const RELAXED_DEADLINES = {
  backendDeadlines: { callDeadlineMs: 60_000, routeBudgetMs: 120_000 },
  proxy: { timeouts: { responseTimeoutMs: 60_000 } },
} as const;

/** Nothing listens on port 1: connections are refused at once. */
export const DEAD_BACKEND: BackendTarget = {
  url: 'http://127.0.0.1:1',
  anonKey: 'anon-key',
  serviceRoleKey: 'service-key',
};

export async function makeTempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  // A DATA_DIR inside runs on the embedded PostgreSQL also when the tests run as root.
  const dir = await makeReachableTempDir(`studyhall-${prefix}-`);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function runGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * A stand-in for a built web app: an index.html in web/dist. Route tests serve files, they do not
 * need the real app (whose Vite build the web tests and the end-to-end run cover).
 */
export async function writeFixtureDist(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'web', 'dist'), { recursive: true });
  await writeFile(
    path.join(dir, 'web', 'dist', 'index.html'),
    '<!doctype html>\n<html lang="en"><head><title>studyhall</title></head><body><div id="app"></div></body></html>\n',
  );
}

/** A small git checkout shaped like studyhall: package.json, web/public, web/sw.template.js, web/dist. */
export async function makeFixtureRepo(dir: string, version = '1.2.3'): Promise<string> {
  await mkdir(path.join(dir, 'web'), { recursive: true });
  await cp(path.join(repoRoot, 'web', 'public'), path.join(dir, 'web', 'public'), { recursive: true });
  await cp(path.join(repoRoot, 'web', 'sw.template.js'), path.join(dir, 'web', 'sw.template.js'));
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'fixture', version }, null, 2)}\n`);
  await writeFile(path.join(dir, '.gitignore'), 'web/dist/\n');
  runGit(dir, 'init', '--quiet', '--initial-branch=main');
  runGit(dir, 'config', 'user.email', 'test@example.com');
  runGit(dir, 'config', 'user.name', 'Test');
  runGit(dir, 'add', '.');
  runGit(dir, 'commit', '--quiet', '-m', 'Initial fixture commit');
  await writeFixtureDist(dir);
  return dir;
}

export function testConfig(logDir: string, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(logDir, 'data'),
    databaseUrl: undefined,
    localbasePort: 0,
    backend: undefined,
    logDir,
    logLevel: 'info',
    admin: { enabled: false, secret: undefined, emails: [] },
    ai: { openai: false, gemini: false },
    update: { remote: 'origin', branch: undefined, installCommand: '', buildCommand: '', restart: 'none' },
    pipPairing: true,
    ...overrides,
  };
}

export interface TestGateway extends Gateway {
  repoDir: string;
  logDir: string;
  close(): Promise<void>;
}

/** A gateway on a fresh fixture checkout and log dir; close() removes both. */
export async function startTestGateway(
  options: Partial<Omit<GatewayOptions, 'config'>> & { config?: Partial<GatewayConfig>; repoDir?: string } = {},
): Promise<TestGateway> {
  const temp = await makeTempDir('gateway');
  const repoDir = options.repoDir ?? (await makeFixtureRepo(path.join(temp.dir, 'repo')));
  const logDir = path.join(temp.dir, 'logs');
  const gateway = await buildGateway({
    ...options,
    backend: options.backend ?? DEAD_BACKEND,
    repoDir,
    config: testConfig(logDir, options.config),
  });
  return {
    ...gateway,
    repoDir,
    logDir,
    close: async () => {
      await gateway.app.close();
      await temp.remove();
    },
  };
}

// `npm start` as a person runs it, on a fresh DATA_DIR: the terminal shows the status block and no
// JSON request line, LOG_DIR/server.log holds every request as JSON, and no secret (keys, tokens,
// password, cookie, tokens in query strings, realtime's WebSocket URL) reaches either of them.
// With LOG_LEVEL=debug the terminal shows the requests again, as readable lines, still redacted.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { repoRoot } from '#db/paths.ts';
import { makeTempDir } from './helpers.ts';
import { freePort } from '#tools/testing/free-port.ts';

function npmStart(env: Record<string, string>) {
  // Its own process group: stopping it reaches node behind npm, as Ctrl-C in a terminal does.
  const child = spawn('npm', ['start'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // 'close' comes once every process holding npm's output is gone: npm and the server behind it.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    output: () => output,
    waitFor: async (text: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`no "${text}" in the output of npm start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: async () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await closed;
    },
    kill: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

interface Secrets {
  anonKey: string;
  databasePassword: string;
  accessToken: string;
  refreshToken: string;
  password: string;
  cookie: string;
  queryToken: string;
}

/** A signup, a login, REST reads with credentials, a query-string token and a realtime socket. */
async function exercise(appUrl: string, dataDir: string, email: string): Promise<Secrets> {
  const password = `pw-${Math.random().toString(36).slice(2)}-long`;
  const credentials = JSON.stringify({ username: email, password });
  const signup = await fetch(`${appUrl}/__auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: credentials,
  });
  expect(signup.status).toBe(201);
  const login = await fetch(`${appUrl}/__auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: credentials,
  });
  expect(login.status).toBe(200);
  const { session } = (await login.json()) as { session: { access_token: string; refresh_token: string } };
  const { anonKey } = JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as { anonKey: string };
  const cookie = `cookie-secret-${Math.random().toString(36).slice(2)}`;
  const queryToken = `query-token-${Math.random().toString(36).slice(2)}`;

  const read = await fetch(`${appUrl}/__backend/rest/v1/user_profiles?select=handle`, {
    headers: { authorization: `Bearer ${session.access_token}`, apikey: anonKey, cookie: `sb-session=${cookie}` },
  });
  expect(read.status).toBe(200);
  expect((await fetch(`${appUrl}/api/health?token=${queryToken}&refresh_token=${session.refresh_token}`)).status).toBe(
    200,
  );
  expect((await fetch(`${appUrl}/api/version`)).status).toBe(200);

  // realtime-js puts the apikey (and older clients the access token) in the WebSocket URL.
  const socketUrl = `${appUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=${anonKey}&access_token=${session.access_token}&vsn=1.0.0`;
  const socket = new WebSocket(socketUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.close();
  // Let the last lines reach server.log.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    anonKey,
    // The embedded PostgreSQL's superuser password: neither on the terminal nor in server.log.
    databasePassword: (await readFile(path.join(dataDir, 'postgres-password'), 'utf8')).trim(),
    accessToken: session.access_token,
    refreshToken: session.refresh_token,
    password,
    cookie,
    queryToken,
  };
}

function expectNoSecret(text: string, secrets: Secrets): void {
  for (const [name, value] of Object.entries(secrets)) {
    expect(text.includes(value), `${name} appears in the log`).toBe(false);
  }
  expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
}

const isJsonObject = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let env: Record<string, string>;
let appUrl: string;

beforeAll(async () => {
  temp = await makeTempDir('start-logging');
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: path.join(temp.dir, 'data'),
    LOG_DIR: path.join(temp.dir, 'logs'),
  };
});

afterAll(async () => {
  await temp?.remove();
});

describe('npm start speaks to a person', () => {
  it('prints the status block, then no JSON request line and no secret; server.log holds the requests, redacted', async () => {
    const studyhall = npmStart(env);
    try {
      await studyhall.waitFor('studyhall: logs', 170_000);
      const secrets = await exercise(appUrl, env.DATA_DIR!, 'noor@example.com');
      await studyhall.stop();

      const terminal = studyhall.output();
      expect(terminal).toContain(`studyhall: app     ${appUrl} (listening on 127.0.0.1)`);
      expect(terminal).toContain(
        `studyhall: logs    ${env.LOG_DIR} (server.log; here: warnings and errors, LOG_LEVEL=debug adds every request)`,
      );
      expect(terminal.split('\n').filter(isJsonObject)).toEqual([]);
      expect(terminal).not.toMatch(/incoming request|request completed|\/__auth\/signup|\/rest\/v1/);
      expectNoSecret(terminal, secrets);

      const log = await readFile(path.join(env.LOG_DIR!, 'server.log'), 'utf8');
      const entries = log
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { name?: string; msg?: string; req?: { url?: string } });
      const urls = (name: string) =>
        entries
          .filter((entry) => entry.name === name && entry.msg === 'incoming request')
          .map((entry) => entry.req?.url);
      expect(urls('gateway')).toEqual(
        expect.arrayContaining([
          '/__auth/signup',
          '/__auth/login',
          '/__backend/rest/v1/user_profiles?select=handle',
          '/api/health?token=[redacted]&refresh_token=[redacted]',
          '/__backend/realtime/v1/websocket?apikey=[redacted]&access_token=[redacted]&vsn=1.0.0',
        ]),
      );
      // localbase, running in the same process, logs through the same redaction.
      expect(urls('localbase')).toEqual(
        expect.arrayContaining([
          '/auth/v1/token?grant_type=password',
          '/realtime/v1/websocket?apikey=[redacted]&access_token=[redacted]&vsn=1.0.0',
        ]),
      );
      expectNoSecret(log, secrets);
    } finally {
      studyhall.kill();
    }
  }, 240_000);

  it('with LOG_LEVEL=debug shows each request as one readable line, still without secrets', async () => {
    const studyhall = npmStart({ ...env, LOG_LEVEL: 'debug' });
    try {
      await studyhall.waitFor('studyhall: logs', 170_000);
      const secrets = await exercise(appUrl, env.DATA_DIR!, 'ines@example.com');
      await studyhall.stop();

      const terminal = studyhall.output();
      expect(terminal).toMatch(/^\d\d:\d\d:\d\d INFO {2}gateway {3}POST \/__auth\/signup 201 \d+ ms$/m);
      expect(terminal).toMatch(
        /^\d\d:\d\d:\d\d INFO {2}gateway {3}GET \/api\/health\?token=\[redacted\]&refresh_token=\[redacted\] 200 \d+ ms$/m,
      );
      expect(terminal).toMatch(
        /^\d\d:\d\d:\d\d INFO {2}localbase POST \/auth\/v1\/token\?grant_type=password 200 \d+ ms$/m,
      );
      expect(terminal.split('\n').filter(isJsonObject)).toEqual([]);
      expectNoSecret(terminal, secrets);
    } finally {
      studyhall.kill();
    }
  }, 240_000);
});

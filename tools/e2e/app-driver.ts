// Shared pieces for driving the student app in Chromium: a running `npm start`, a proxy that adds
// the app's Content-Security-Policy when the gateway does not send it yet, a signed-in browser
// context, a collector of CSP violations, and the steps every screen shares (the main navigation,
// the restore offer of a fresh browser).
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { freePort } from '../testing/free-port.ts';
import { startStudyhall as spawnStudyhall, type StudyhallProcess } from './companion/studyhall-process.ts';

/** The policy the gateway sends for the web app (the project's shared decision). */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/** What localbase keeps in DATA_DIR/keys.json that tests use. */
export interface LocalbaseKeys {
  anonKey: string;
  serviceRoleKey: string;
  /** The management API's access token. */
  accessToken: string;
}

export interface RunningStudyhall {
  /** The gateway at its loopback address. */
  url: string;
  /** localbase, straight (loopback only). */
  localbaseUrl: string;
  dataDir: string;
  logDir: string;
  /** The environment it runs with now (besides PATH, HOME and LOG_LEVEL, unless set here). */
  readonly env: Record<string, string>;
  readonly child: ChildProcess;
  /** What the running process printed, stdout and stderr together. */
  output(): string;
  waitFor(text: string, timeoutMs: number): Promise<void>;
  /** SIGTERM, SIGKILL after 10 s; the exit code (null when it had to be killed). */
  stop(): Promise<number | null>;
  /**
   * Stops it and starts it again on the same ports and DATA_DIR, with `changes` to its
   * environment (undefined removes a variable), as a restart of the machine's server would.
   */
  restart(changes?: Record<string, string | undefined>): Promise<void>;
  keys(): Promise<LocalbaseKeys>;
}

/**
 * `npm start` (gateway/src/main.ts) with its own ports, DATA_DIR and LOG_DIR; `extraEnv` may name
 * the ports (PORT, LOCALBASE_PORT) and anything else it reads.
 */
export async function startStudyhall(
  dirs: { dataDir: string; logDir: string },
  extraEnv: Record<string, string> = {},
): Promise<RunningStudyhall> {
  let env: Record<string, string> = {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(await freePort()),
    DATA_DIR: dirs.dataDir,
    LOG_DIR: dirs.logDir,
    ...extraEnv,
  };
  const launch = async (): Promise<StudyhallProcess> => {
    const started = spawnStudyhall(env, 150_000);
    await started.ready;
    return started;
  };
  let current = await launch();
  const stop = async (): Promise<number | null> => {
    const { child } = current;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = current.stop();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return {
    url: `http://127.0.0.1:${env.PORT}`,
    localbaseUrl: `http://127.0.0.1:${env.LOCALBASE_PORT}`,
    dataDir: dirs.dataDir,
    logDir: dirs.logDir,
    get env() {
      return env;
    },
    get child() {
      return current.child;
    },
    output: () => current.output(),
    async waitFor(text, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!current.output().includes(text)) {
        if (current.child.exitCode !== null || Date.now() > deadline)
          throw new Error(`no "${text}" in the output of npm start:\n${current.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop,
    async restart(changes = {}) {
      await stop();
      const next = { ...env };
      for (const [name, value] of Object.entries(changes)) {
        if (value === undefined) delete next[name];
        else next[name] = value;
      }
      env = next;
      current = await launch();
    },
    keys: async () => JSON.parse(await readFile(path.join(dirs.dataDir, 'keys.json'), 'utf8')) as LocalbaseKeys,
  };
}

export interface CspProxy {
  url: string;
  /** Whether the upstream already sent a policy (then the proxy passes it through untouched). */
  upstreamSentCsp: () => boolean;
  /**
   * Cuts every WebSocket the proxy carries (realtime), as a dropped network would, and refuses new
   * ones for `refuseForMs`, so a test can talk while the socket is away.
   */
  dropWebSockets(refuseForMs?: number): number;
  /**
   * Makes the server unreachable through the proxy, as a stopped server would be (every open
   * connection cut, every new one closed unanswered), or reachable again.
   */
  setServerDown(down: boolean): void;
  close(): Promise<void>;
}

/**
 * A pass-through HTTP proxy in front of the gateway that adds APP_CSP to HTML answers lacking a
 * Content-Security-Policy, so the app is proven to run under it whether or not the gateway sends
 * it already. Streams (SSE) pass through unbuffered; WebSocket upgrades (realtime) are tunnelled
 * byte for byte, and can be cut on demand.
 */
export async function startCspProxy(upstream: string): Promise<CspProxy> {
  const target = new URL(upstream);
  let sawUpstreamCsp = false;
  let ownOrigin = '';
  // The page is served by this proxy, so its requests name the proxy's origin; the gateway, asked
  // under its own Host, must see them as the same-origin requests they are (its CSRF guard).
  const headersFor = (request: http.IncomingMessage) => ({
    ...request.headers,
    host: target.host,
    ...(request.headers.origin === ownOrigin ? { origin: target.origin } : {}),
  });
  let serverDown = false;
  const server = http.createServer((request, response) => {
    if (serverDown) return void request.socket.destroy();
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: headersFor(request),
      },
      (answer) => {
        const headers = { ...answer.headers };
        if (headers['content-security-policy']) sawUpstreamCsp = true;
        else if (String(headers['content-type'] ?? '').includes('text/html'))
          headers['content-security-policy'] = APP_CSP;
        response.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => {
      if (response.destroyed) return;
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
      response.end('{"error":"proxy_upstream_failed","message":"The gateway did not answer."}');
    });
    // A page that goes away (its event stream, when its context closes) takes its request to the
    // gateway with it, as it would without the proxy: the gateway counts open streams per address.
    response.on('close', () => {
      if (!response.writableFinished) forward.destroy();
    });
    request.pipe(forward);
  });
  const tunnels = new Set<Socket>();
  let refuseUntil = 0;
  server.on('upgrade', (request: http.IncomingMessage, client: Socket, head: Buffer) => {
    if (serverDown || Date.now() < refuseUntil) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let index = 0; index < request.rawHeaders.length; index += 2) {
        const name = request.rawHeaders[index] ?? '';
        const value = request.rawHeaders[index + 1] ?? '';
        const lower = name.toLowerCase();
        lines.push(
          `${name}: ${lower === 'host' ? target.host : lower === 'origin' && value === ownOrigin ? target.origin : value}`,
        );
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      tunnels.delete(client);
      tunnels.delete(upstream);
    };
    tunnels.add(client);
    tunnels.add(upstream);
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  ownOrigin = `http://127.0.0.1:${port}`;
  return {
    url: ownOrigin,
    upstreamSentCsp: () => sawUpstreamCsp,
    dropWebSockets(refuseForMs = 0) {
      refuseUntil = Date.now() + refuseForMs;
      const count = [...tunnels].filter((socket) => !socket.destroyed).length / 2;
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
      return count;
    },
    setServerDown(down) {
      serverDown = down;
      if (!down) return;
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
      server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of tunnels) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SessionJson {
  access_token: string;
  refresh_token: string;
  user: { id: string; email?: string };
  [key: string]: unknown;
}

/** Signs a student up (or logs in when the account exists) through the gateway, from Node. */
export async function accountSession(baseUrl: string, email: string, password: string): Promise<SessionJson> {
  for (const route of ['/__auth/signup', '/__auth/login']) {
    const response = await fetch(`${baseUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, password }),
    });
    if (response.ok) return ((await response.json()) as { session: SessionJson }).session;
    if (response.status !== 409) throw new Error(`${route} answered ${response.status}: ${await response.text()}`);
  }
  throw new Error('unreachable');
}

/** A browser context whose app starts signed in as this session (as supabase-js stores it). */
export async function signedInContext(
  browser: Browser,
  session: SessionJson,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addInitScript((stored: string) => {
    if (!localStorage.getItem('studyhall-auth')) localStorage.setItem('studyhall-auth', stored);
  }, JSON.stringify(session));
  return context;
}

export interface CspViolation {
  directive: string;
  blocked: string;
  source: string;
}

/** Records every securitypolicyviolation the page (and its later navigations) reports. */
export async function collectCspViolations(page: Page): Promise<CspViolation[]> {
  const violations: CspViolation[] = [];
  await page.exposeFunction('__reportCspViolation', (violation: CspViolation) => violations.push(violation));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { __reportCspViolation: (v: unknown) => void }).__reportCspViolation({
        directive: event.violatedDirective,
        blocked: event.blockedURI,
        source: `${event.sourceFile}:${event.lineNumber}`,
      });
    });
  });
  return violations;
}

export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;

/**
 * Switches an open page to a colour scheme and viewport (with reduced motion, as the axe sweeps
 * open pages), and resolves once it has drawn two frames in it: the app's themes and layouts are
 * CSS media queries, so the page then looks as one opened in that look.
 */
export async function inLook(
  page: Page,
  colorScheme: 'light' | 'dark',
  viewport: { width: number; height: number },
): Promise<void> {
  await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  const dark = await page.evaluate(
    () =>
      new Promise<boolean>((resolve) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => resolve(matchMedia('(prefers-color-scheme: dark)').matches)),
        ),
      ),
  );
  if (dark !== (colorScheme === 'dark')) throw new Error(`the page did not switch to the ${colorScheme} scheme`);
}

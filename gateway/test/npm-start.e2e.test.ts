// `npm start` on a fresh DATA_DIR, met in Debian's Chromium: its launcher brings the builds up to
// date (the web app, the phone remote, the compiled server), then the one process boots localbase and
// the gateway, the browser gets the app shell and its service worker, a student signs up from the
// page, the phone's timer actions reach the page over SSE, and SIGTERM stops everything cleanly.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { test } from '@playwright/test';
import { expect } from '#tools/e2e/expect.ts';
import { makeTempDir } from './helpers.ts';
import { freePort } from '#tools/testing/free-port.ts';
import { startNpmStart, type NpmStart } from '#tools/testing/npm-start.ts';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let studyhall: NpmStart;
let page: Page;
let appUrl: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  temp = await makeTempDir('npm-start');
  const port = await freePort();
  const localbasePort = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  studyhall = startNpmStart({
    PORT: String(port),
    HOST: '127.0.0.1',
    LOCALBASE_PORT: String(localbasePort),
    DATA_DIR: path.join(temp.dir, 'data'),
    LOG_DIR: path.join(temp.dir, 'logs'),
    LOG_LEVEL: 'warn',
  });
  // A fresh DATA_DIR means creating the embedded PostgreSQL (initdb) and every migration: the slow path on purpose
  // (after up to three builds when the checkout's are stale).
  await studyhall.waitFor('studyhall: logs', 210_000);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.context().close();
  studyhall?.child.kill('SIGKILL');
  await temp?.remove();
});

test.describe('npm start with the embedded localbase, in Chromium', () => {
  test('prints the app and localbase URLs', () => {
    expect(studyhall.output()).toContain(`studyhall: app     ${appUrl} (listening on 127.0.0.1)`);
    expect(studyhall.output()).toMatch(/studyhall: backend http:\/\/127\.0\.0\.1:\d+ \(localbase, loopback only\)/);
    // A fresh DATA_DIR: the embedded PostgreSQL is created once, and named.
    expect(studyhall.output()).toContain('localbase: creating the database (first start only)');
    expect(studyhall.output()).toMatch(/studyhall: engine {2}PostgreSQL 15\.\d+ \(embedded\) \(.*\/data\/postgres\)/);
  });

  test('serves the app shell, which greets a new visitor and installs its service worker', async () => {
    const response = await page.goto(appUrl);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.textContent('h1')).toBe('Welcome to studyhall');
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${appUrl}/`);
  });

  test('serves the phone remote its launcher built', async () => {
    const response = await fetch(`${appUrl}/companion/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
  });

  test('answers an unknown API path in JSON, never with the app', async () => {
    const answer = await page.evaluate(async () => {
      const response = await fetch('/api/no-such-route');
      return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
    });
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/application\/json/);
    expect(answer.body).toMatchObject({ error: expect.any(String) });
  });

  test('reports the embedded backend as up', async () => {
    const health = await page.evaluate(async () => (await fetch('/api/health')).json());
    expect(health).toMatchObject({ ok: true, backend: { status: 'up' } });
  });

  test('signs a student up from the page and hydrates the app with her own bundle', async () => {
    const result = await page.evaluate(async () => {
      const signup = await fetch('/__auth/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'mira@example.com', password: 'mira-password-1' }),
      });
      const session = (await signup.json()).session;
      const bootstrap = await fetch('/__auth/bootstrap', {
        headers: { authorization: `Bearer ${session.access_token}` },
      });
      return { signup: signup.status, bootstrap: bootstrap.status, bundle: await bootstrap.json() };
    });
    expect(result.signup).toBe(201);
    expect(result.bootstrap).toBe(200);
    expect(result.bundle).toMatchObject({
      profile: { handle: 'mira' },
      enrollment: { privacy: { shareExactTime: true } },
    });
  });

  test("delivers the phone's timer action to the page's event stream, with the code the page paired for", async () => {
    const code = await page.evaluate(async () => {
      // Pairing is on by default: the page pairs, listens on its channel, and shows the code.
      const paired = await fetch('/__pip/pair', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const { code, channel } = (await paired.json()) as { code: string; channel: string };
      const events = new EventSource(`/__pip/events?channel=${channel}`);
      const received: unknown[] = [];
      Object.assign(window, { pipReceived: received, pipStream: events });
      events.addEventListener('pip-action', (event) => received.push(JSON.parse((event as MessageEvent<string>).data)));
      await new Promise((resolve) => events.addEventListener('hello', resolve, { once: true }));
      return code;
    });
    const unpaired = await fetch(`${appUrl}/api/pip/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'correct' }),
    });
    expect(unpaired.status).toBe(401);
    const sent = await fetch(`${appUrl}/api/pip/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pip-code': code },
      body: JSON.stringify({ action: 'target', target: 12 }),
    });
    expect(sent.status).toBeLessThan(300);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { pipReceived: unknown[] }).pipReceived))
      .toEqual([expect.objectContaining({ action: 'target', target: 12 })]);
  });

  test('stops cleanly on SIGTERM, releasing DATA_DIR', async () => {
    test.setTimeout(30_000);
    studyhall.child.kill('SIGTERM');
    expect(await studyhall.exited).toBe(0);
    expect(studyhall.output()).toContain('studyhall: SIGTERM, stopping');
  });
});

// Spellings that must not bypass a decision: the fences, the credential rate limit and the proxy's
// edge-function intercepts are decided on the decided path (security/request-path.ts). Every request
// goes over a raw socket, exactly as written, and the stand-in backend counts what reaches it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { isJsonError, rawRequest } from './raw-http.ts';
import { lenientReading, spellingsOf } from './spellings.ts';

let upstream: http.Server;
let reached: Array<{ method: string; url: string; path: string }> = [];
let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      reached.push({
        method: request.method ?? '',
        url: request.url ?? '',
        path: lenientReading((request.url ?? '').split('?')[0] ?? ''),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    backend: {
      url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      anonKey: 'anon',
      serviceRoleKey: 'service',
    },
  });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  upstream.close();
});
beforeEach(() => {
  reached = [];
});

describe('fences over a raw socket', () => {
  it.each([
    '/%61pi/x',
    '/%5f%5fai/x',
    '/API/x',
    '//api/x',
    '/x/../api/x',
    '/Api',
    '/__AI',
    '/%5F%5Fnothing-here',
    '/api%2fnothing',
    '/%2e/api/x',
  ])('GET %s is a JSON 404, never the app', async (path) => {
    const response = await rawRequest(baseUrl, { path });
    expect(response.status).toBe(404);
    expect(isJsonError(response), response.body.slice(0, 80)).toBe(true);
  });

  it('never serves the app for any generated spelling of an /api or /__ path', async () => {
    const fenced = fc.constantFrom(
      '/api/no-such-route',
      '/__ai/chat',
      '/__nothing/here',
      '/api/pip/nope',
      '/__aianything',
    );
    await fc.assert(
      fc.asyncProperty(fenced.chain(spellingsOf), async (path) => {
        const response = await rawRequest(baseUrl, { path });
        expect(response.headers['content-type'] ?? '', path).not.toMatch(/text\/html/);
        expect(response.status, path).toBeGreaterThanOrEqual(400);
        expect(response.status, path).toBeLessThan(500);
        expect(isJsonError(response), path).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

const isCredentialPath = (path: string) => ['/auth/v1/token', '/auth/v1/signup'].includes(path);
let addressCounter = 0;

describe('the credential rate limit over a raw socket', () => {
  it.each([
    ['POST', '/__backend/auth/v1/%74oken?grant_type=password'],
    ['POST', '/__backend/auth/v1/sign%75p'],
    ['POST', '/%5f%5fbackend/auth/v1/token?grant_type=password'],
    ['POST', '/__backend/auth/v1/./token?grant_type=password'],
    ['POST', '/__backend/auth/v1/token?grant_type=%70assword'],
    ['POST', '/__backend/auth/v1/token?grant_type=refresh_token&grant_type=password'],
    ['POST', '/__backend/auth/v1/token?grant%5Ftype=password'],
    ['POST', '/__backend/auth/v1/token'],
  ])('%s %s spends the budget: the 11th attempt from one address is refused', async (method, path) => {
    // Each case from its own address, so their budgets never mix.
    const localAddress = `127.0.1.${++addressCounter}`;
    const answers: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      answers.push(
        (
          await rawRequest(baseUrl, {
            method,
            path,
            localAddress,
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      );
    }
    expect(answers.slice(0, 10).every((status) => status !== 429)).toBe(true);
    expect(answers.slice(10)).toEqual([429, 429]);
    expect(reached.length).toBeLessThanOrEqual(10);
  });

  it('lets at most 10 generated spellings of token and signup through per address, whatever they look like', async () => {
    const attempt = fc.oneof(
      spellingsOf('/__backend/auth/v1/token').map((path) => `${path}?grant_type=password`),
      spellingsOf('/__backend/auth/v1/signup'),
      spellingsOf('/__auth/login'),
    );
    const samples = fc.sample(attempt, { numRuns: 60, seed: 9 });
    const statuses: number[] = [];
    for (const path of samples) {
      const response = await rawRequest(baseUrl, {
        method: 'POST',
        path,
        localAddress: '127.0.2.1',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      statuses.push(response.status);
      expect(response.status, path).toBeLessThan(500);
    }
    // Every attempt that reached the backend, read the way a lenient backend reads it, counted.
    expect(reached.filter((entry) => isCredentialPath(entry.path)).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(samples.length - 10);
  });

  it('never limits refreshing a session or reading data', async () => {
    for (let attempt = 0; attempt < 15; attempt++) {
      expect(
        (
          await rawRequest(baseUrl, {
            method: 'POST',
            path: '/__backend/auth/v1/token?grant_type=refresh_token',
            localAddress: '127.0.3.1',
            body: '{}',
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(200);
      expect((await rawRequest(baseUrl, { path: '/__backend/rest/v1/items', localAddress: '127.0.3.1' })).status).toBe(
        200,
      );
    }
  });
});

describe("the proxy's intercepts over a raw socket", () => {
  it.each([
    '/__backend/functions/v1/%6ceaderboard',
    '/__backend/functions/v1/LEADERBOARD',
    '/%5f%5fbackend/functions/v1/analytics',
    '/__backend/functions/v1/./finish-session',
    '/__backend/functions/v1/group-%61nalytics',
  ])('POST %s is answered 502 edge_function_disabled and never forwarded', async (path) => {
    const response = await rawRequest(baseUrl, {
      method: 'POST',
      path,
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body).error).toBe('edge_function_disabled');
    expect(reached).toEqual([]);
  });

  it('answers every generated spelling of a disabled function without forwarding it', async () => {
    const disabled = fc.constantFrom(
      '/__backend/functions/v1/leaderboard',
      '/__backend/functions/v1/analytics',
      '/__backend/functions/v1/finish-session',
    );
    await fc.assert(
      fc.asyncProperty(disabled.chain(spellingsOf), async (path) => {
        const response = await rawRequest(baseUrl, {
          method: 'POST',
          path,
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status, path).not.toBe(200);
        expect(isJsonError(response), path).toBe(true);
      }),
      { numRuns: 120 },
    );
    expect(reached.filter((entry) => /leaderboard|analytics|finish-session/.test(entry.path))).toEqual([]);
  });

  it.each(['/__backend/functions/v1/customer-%70ortal', '/__backend/functions/v1/CREATE-CHECKOUT-SESSION'])(
    'POST %s gets the inert payment stub',
    async (path) => {
      const response = await rawRequest(baseUrl, {
        method: 'POST',
        path,
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ stub: true });
      expect(reached).toEqual([]);
    },
  );
});

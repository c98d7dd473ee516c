import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ADMIN_COOKIE, signAdminCookie } from '../src/admin/admin-cookie.ts';
import { DEAD_BACKEND, startTestGateway, type TestGateway } from './helpers.ts';

const ADMIN_SECRET = 'a-test-admin-secret-of-32-chars!';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamUrl: string;
let seen: Seen[] = [];
let releaseStream: () => void = () => {};
let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url === '/rest/v1/stream') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('first chunk\n');
        releaseStream = () => response.end('second chunk\n');
        return;
      }
      response.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, x-upstream-hop',
        'x-upstream-hop': 'secret',
        'keep-alive': 'timeout=5',
      });
      response.end(JSON.stringify({ method: request.method, url: request.url, body }));
    });
  });
  const sockets = new WebSocketServer({ server: upstream, path: '/realtime/v1/websocket' });
  sockets.on('connection', (socket, request) => {
    socket.send(
      JSON.stringify({
        hello: true,
        url: request.url,
        apikey: request.headers.apikey ?? null,
        consoleAdmin: request.headers['x-studyhall-console-admin'] ?? null,
      }),
    );
    socket.on('message', (data) => socket.send(`echo:${data.toString()}`));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startTestGateway({
    backend: { url: upstreamUrl, anonKey: 'anon-key', serviceRoleKey: 'service-key' },
    config: { admin: { enabled: true, secret: ADMIN_SECRET, emails: [] } },
  });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  upstream.close();
});

beforeEach(() => {
  seen = [];
});

const adminCookie = (secret = ADMIN_SECRET) => `${ADMIN_COOKIE}=${signAdminCookie(Buffer.from(secret), 'owner')}`;

describe('/__backend/* proxy', () => {
  it("forwards any method with the caller's JWT and apikey, body and query intact", async () => {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE'] as const) {
      const response = await fetch(`${baseUrl}/__backend/rest/v1/user_profiles?user_id=eq.1`, {
        method,
        headers: { authorization: 'Bearer user-jwt', apikey: 'anon-key', 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: JSON.stringify({ display_name: 'Ada' }) }),
      });
      expect(response.status, method).toBe(200);
    }
    expect(seen.map((request) => request.method)).toEqual(['GET', 'POST', 'PATCH', 'DELETE']);
    for (const request of seen) {
      expect(request.url).toBe('/rest/v1/user_profiles?user_id=eq.1');
      expect(request.headers.authorization).toBe('Bearer user-jwt');
      expect(request.headers.apikey).toBe('anon-key');
    }
    expect(JSON.parse(seen[2]?.body ?? '')).toEqual({ display_name: 'Ada' });
  });

  it('adds the anon key when the caller sends none', async () => {
    await fetch(`${baseUrl}/__backend/rest/v1/items`);
    expect(seen[0]?.headers.apikey).toBe('anon-key');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('strips hop-by-hop headers and cookies in both directions', async () => {
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(
        `${baseUrl}/__backend/rest/v1/items`,
        {
          headers: {
            connection: 'keep-alive, x-client-hop',
            'x-client-hop': 'private',
            'keep-alive': 'timeout=5',
            'proxy-authorization': 'Basic c2VjcmV0',
            te: 'gzip',
            cookie: `${adminCookie('another-secret-of-sufficient-len')}; theme=dark`,
            'x-end-to-end': 'kept',
          },
        },
        resolve,
      );
      request.on('error', reject);
      request.end();
    });
    response.resume();
    const headers = seen[0]?.headers ?? {};
    for (const name of ['x-client-hop', 'proxy-authorization', 'te', 'cookie'])
      expect(headers[name], name).toBeUndefined();
    expect(headers['keep-alive']).toBeUndefined();
    expect(headers['x-end-to-end']).toBe('kept');
    expect(response.headers['x-upstream-hop']).toBeUndefined();
    // The gateway's own connection may be keep-alive; the backend's Keep-Alive value must not leak.
    expect(response.headers['keep-alive']).not.toBe('timeout=5');
  });

  it('uses the service key for a caller with a valid admin cookie, and only then', async () => {
    await fetch(`${baseUrl}/__backend/rest/v1/items`, {
      headers: { cookie: adminCookie(), authorization: 'Bearer user-jwt' },
    });
    await fetch(`${baseUrl}/__backend/rest/v1/items`, {
      headers: { cookie: adminCookie('a-forged-secret-that-is-long-too'), authorization: 'Bearer user-jwt' },
    });
    await fetch(`${baseUrl}/__backend/rest/v1/items`, {
      headers: { cookie: `${ADMIN_COOKIE}=garbage`, authorization: 'Bearer user-jwt' },
    });
    expect(seen.map((request) => request.headers.authorization)).toEqual([
      'Bearer service-key',
      'Bearer user-jwt',
      'Bearer user-jwt',
    ]);
    expect(seen[0]?.headers.apikey).toBe('service-key');
  });

  it('names the admin of a verified session in x-studyhall-console-admin, and drops the one a caller sends', async () => {
    const forged = { 'x-studyhall-console-admin': 'user:00000000-0000-4000-8000-00000000000b:bo@school.test' };
    const callers: Record<string, string>[] = [
      { cookie: adminCookie(), authorization: 'Bearer user-jwt' },
      { cookie: adminCookie('a-forged-secret-that-is-long-too'), authorization: 'Bearer user-jwt' },
      { authorization: 'Bearer user-jwt' },
      {},
    ];
    for (const headers of callers) {
      await fetch(`${baseUrl}/__backend/rest/v1/rpc/admin_audit_console_action`, {
        method: 'POST',
        headers: { ...headers, ...forged, 'X-Studyhall-Console-Admin': 'secret', 'content-type': 'application/json' },
        body: '{}',
      });
    }
    expect(seen.map((request) => request.headers['x-studyhall-console-admin'] ?? null)).toEqual([
      'owner',
      null,
      null,
      null,
    ]);
  });

  it('ignores a valid admin cookie while admin mode is not enabled', async () => {
    const disabled = await startTestGateway({
      backend: { url: upstreamUrl, anonKey: 'anon-key', serviceRoleKey: 'service-key' },
      config: { admin: { enabled: false, secret: ADMIN_SECRET, emails: [] } },
    });
    try {
      await disabled.app.inject({
        url: '/__backend/rest/v1/items',
        headers: { cookie: adminCookie(), authorization: 'Bearer user-jwt' },
      });
      expect(seen[0]?.headers.authorization).toBe('Bearer user-jwt');
    } finally {
      await disabled.close();
    }
  });

  it('streams the response: the first chunk arrives before the backend has finished', async () => {
    const response = await fetch(`${baseUrl}/__backend/rest/v1/stream`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first chunk\n');
    releaseStream();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('second chunk\n');
  });

  it('upgrades a WebSocket for realtime and relays messages both ways', async () => {
    const socket = new WebSocket(
      `${baseUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=anon-key&vsn=1.0.0`,
    );
    const messages: string[] = [];
    const nextMessage = () =>
      new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    const hello = JSON.parse(await nextMessage());
    expect(hello).toEqual({
      hello: true,
      url: '/realtime/v1/websocket?apikey=anon-key&vsn=1.0.0',
      apikey: 'anon-key',
      consoleAdmin: null,
    });
    socket.send('phx_join');
    messages.push(await nextMessage());
    expect(messages).toEqual(['echo:phx_join']);
    socket.close();
  });

  it("names the admin on her realtime socket's upgrade, and passes no one's forged name", async () => {
    const helloWith = async (headers: Record<string, string>) => {
      const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?vsn=1.0.0`, {
        headers: { ...headers, 'x-studyhall-console-admin': 'secret' },
      });
      const hello = JSON.parse(
        await new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString()))),
      );
      socket.close();
      return { apikey: hello.apikey, consoleAdmin: hello.consoleAdmin };
    };
    expect(await helloWith({ cookie: adminCookie() })).toEqual({ apikey: 'service-key', consoleAdmin: 'owner' });
    expect(await helloWith({ apikey: 'anon-key', authorization: 'Bearer user-jwt' })).toEqual({
      apikey: 'anon-key',
      consoleAdmin: null,
    });
  });
});

describe('edge-function interceptions', () => {
  it.each(['get-leaderboard', 'leaderboard', 'group-analytics', 'analytics', 'finish-session'])(
    '/functions/v1/%s answers 502 edge_function_disabled without touching the backend',
    async (name) => {
      const response = await gateway.app.inject({
        method: 'POST',
        url: `/__backend/functions/v1/${name}`,
        payload: {},
      });
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ error: 'edge_function_disabled' });
      expect(seen).toHaveLength(0);
    },
  );

  it.each(['create-checkout-session', 'customer-portal', 'stripe-payment-intent', 'billing-portal-link'])(
    '/functions/v1/%s answers an inert 200 stub without touching the backend',
    async (name) => {
      const response = await gateway.app.inject({
        method: 'POST',
        url: `/__backend/functions/v1/${name}`,
        payload: {},
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ ok: true, stub: true, url: null });
      expect(seen).toHaveLength(0);
    },
  );

  it('forwards every other edge function', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/__backend/functions/v1/send-reminder',
      payload: {},
    });
    expect(response.statusCode).toBe(200);
    expect(seen[0]?.url).toBe('/functions/v1/send-reminder');
  });
});

describe('credential attempts through the proxy', () => {
  it('limits password grants and signups to 10 per minute per address, not refreshes or data calls', async () => {
    const fromOneAddress = { remoteAddress: '198.51.100.4' };
    const grant = () =>
      gateway.app.inject({
        method: 'POST',
        url: '/__backend/auth/v1/token?grant_type=password',
        payload: { email: 'a@example.com', password: 'x' },
        ...fromOneAddress,
      });
    for (let attempt = 1; attempt <= 10; attempt++) expect((await grant()).statusCode, `attempt ${attempt}`).toBe(200);
    const eleventh = await grant();
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.json()).toMatchObject({ error: 'rate_limited' });
    expect(
      (await gateway.app.inject({ method: 'POST', url: '/__backend/auth/v1/signup', payload: {}, ...fromOneAddress }))
        .statusCode,
    ).toBe(429);
    expect(seen).toHaveLength(10);
    const refresh = await gateway.app.inject({
      method: 'POST',
      url: '/__backend/auth/v1/token?grant_type=refresh_token',
      payload: {},
      ...fromOneAddress,
    });
    expect(refresh.statusCode).toBe(200);
    expect((await gateway.app.inject({ url: '/__backend/rest/v1/items', ...fromOneAddress })).statusCode).toBe(200);
    expect(
      (
        await gateway.app.inject({
          method: 'POST',
          url: '/__backend/auth/v1/token?grant_type=password',
          payload: {},
          remoteAddress: '198.51.100.5',
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('a backend that is down', () => {
  it('gives 502 fast with the JSON error body', async () => {
    const down = await startTestGateway({ backend: DEAD_BACKEND });
    try {
      const started = Date.now();
      const response = await down.app.inject({ url: '/__backend/rest/v1/items' });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ error: 'backend_unavailable', message: 'The backend did not answer.' });
    } finally {
      await down.close();
    }
  });
});

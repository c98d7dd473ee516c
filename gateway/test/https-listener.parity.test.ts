// The HTTPS listener serves the same app as the plain one: the timer relay's pairing and event
// stream (SSE), the /__backend proxy with its realtime WebSocket upgrade to a real localbase, on
// both listeners alike; closing the app with a stream open over HTTPS still ends promptly.
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { RELAXED_DEADLINES } from './helpers.ts';
import { httpsGet, startHttpsTestGateway, type HttpsTestGateway } from './https-helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let server: HttpsTestGateway;

beforeAll(async () => {
  server = await startHttpsTestGateway({
    gateway: {
      backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
      ...RELAXED_DEADLINES,
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Joins a broadcast channel over the proxied realtime socket; resolves with the join reply's status. */
function joinRealtime(url: string, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url}/__backend/realtime/v1/websocket?apikey=${localbase.anonKey}&vsn=1.0.0`, {
      ...(ca ? { ca, servername: 'studyhall.local' } : {}),
    });
    const timer = setTimeout(() => reject(new Error('no join reply within 10 s')), 10_000);
    socket.on('open', () =>
      socket.send(
        JSON.stringify({
          topic: 'realtime:room-1',
          event: 'phx_join',
          payload: { config: { broadcast: { self: true }, presence: { key: '' }, postgres_changes: [] } },
          ref: '1',
        }),
      ),
    );
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; ref: string; payload: { status: string } };
      if (message.event !== 'phx_reply' || message.ref !== '1') return;
      clearTimeout(timer);
      socket.close();
      resolve(message.payload.status);
    });
    socket.on('error', reject);
  });
}

describe('the HTTPS listener', () => {
  it('upgrades the realtime WebSocket through /__backend, as the plain listener does', async () => {
    expect(await joinRealtime(`wss://127.0.0.1:${server.httpsPort}`, server.trusted)).toBe('ok');
    expect(await joinRealtime(`ws://127.0.0.1:${server.httpPort}`)).toBe('ok');
  });

  it('answers the data API through the proxy', async () => {
    const answer = await httpsGet(server.httpsPort, '/__backend/auth/v1/settings', {
      ca: server.trusted,
      servername: 'studyhall.local',
      headers: { apikey: localbase.anonKey },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toHaveProperty('external');
  });

  it("pairs a focus page and streams its relay events over HTTPS, then closes with the app's close", async () => {
    const pair = await new Promise<{ channel: string; code: string }>((resolve, reject) => {
      const request = https.request(
        {
          host: '127.0.0.1',
          port: server.httpsPort,
          path: '/__pip/pair',
          method: 'POST',
          ca: server.trusted,
          servername: 'studyhall.local',
          headers: { 'content-type': 'application/json', host: `studyhall.local:${server.httpsPort}` },
        },
        (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve(JSON.parse(body) as { channel: string; code: string }));
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    expect(pair.code).toMatch(/^[0-9A-Z]{6}$/);
    const hello = await new Promise<string>((resolve, reject) => {
      const request = https.get(
        {
          host: '127.0.0.1',
          port: server.httpsPort,
          path: `/__pip/events?channel=${pair.channel}`,
          ca: server.trusted,
          servername: 'studyhall.local',
          headers: { accept: 'text/event-stream', host: `studyhall.local:${server.httpsPort}` },
        },
        (response) => {
          expect(response.headers['content-type']).toMatch(/text\/event-stream/);
          response.setEncoding('utf8');
          let buffer = '';
          response.on('data', (chunk: string) => {
            buffer += chunk;
            if (buffer.includes('event: hello')) resolve(buffer);
          });
        },
      );
      request.on('error', reject);
    });
    expect(hello).toContain('event: hello');
    // The stream is still open: closing the app ends it, and the HTTPS listener closes after it.
    const started = Date.now();
    await server.gateway.app.close();
    await server.listener.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

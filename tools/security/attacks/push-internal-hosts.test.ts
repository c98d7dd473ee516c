// attack: aim the push worker at this computer's own services. A device token is the student's own
// text; one whose endpoint is https://127.0.0.1:<port>/x, https://localhost:<port>/x, an IPv6 or
// IPv4-mapped loopback literal, or a public-looking name that resolves to 127.0.0.1, made the
// gateway open TLS connections there, with retries. Now every endpoint's host is looked up once,
// refused unless all its addresses are public, and a refused row is given up without a retry.
import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Claim, ClaimedRow, OutboxClient } from '#gateway/src/push/outbox-client.ts';
import type { HostResolver } from '#gateway/src/push/public-address.ts';
import { PushWorker, type PushLog } from '#gateway/src/push/push-worker.ts';
import { startTestGateway } from '#gateway/test/helpers.ts';

let listener: tls.Server;
let port: number;
let accepted = 0;

beforeAll(async () => {
  // A TLS service on loopback, as /api/update-now or a database console would be: it only counts sockets.
  listener = tls.createServer({});
  listener.on('connection', () => accepted++);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});

afterAll(() => listener.close());

function token(endpoint: string): string {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return JSON.stringify({
    endpoint,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  });
}

function row(endpoint: string): ClaimedRow {
  return {
    id: randomUUID(),
    recipient_id: randomUUID(),
    token: token(endpoint),
    attempts: 1,
    payload: {
      type: 'start_alert',
      actor: { id: randomUUID(), handle: 'mallory' },
      target_type: 'buddy',
      target_id: randomUUID(),
      started_at: new Date().toISOString(),
    },
  };
}

interface Settled {
  id: string;
  error: string;
  retryAfterSeconds: number | undefined;
}

/** An outbox that hands out the given rows once and records how each was settled. */
function fakeOutbox(rows: ClaimedRow[]) {
  const settled: Settled[] = [];
  let handedOut = false;
  const outbox = {
    claim: async (): Promise<Claim> => {
      const claim = {
        claim_id: randomUUID(),
        lease_until: new Date(Date.now() + 120_000).toISOString(),
        rows: handedOut ? [] : rows,
        given_up: 0,
      };
      handedOut = true;
      return claim;
    },
    markSent: async (_claim: string, ids: string[]) => ids.length,
    markFailed: async (_claim: string, id: string, error: string, retryAfterSeconds: number | undefined) => {
      settled.push({ id, error, retryAfterSeconds });
      return retryAfterSeconds === undefined ? 'failed' : 'retry';
    },
    removeToken: async () => true,
    release: async (_claim: string, ids: string[]) => ids.length,
    prune: async () => 0,
  };
  return { outbox: outbox as unknown as OutboxClient, settled };
}

function capturingLog(): PushLog & { warnings: object[] } {
  const warnings: object[] = [];
  return { warnings, info: () => {}, warn: (object) => void warnings.push(object), error: () => {} };
}

async function deliver(rows: ClaimedRow[], options: { resolveHost?: HostResolver; allowPlainHttp?: boolean } = {}) {
  const { outbox, settled } = fakeOutbox(rows);
  const log = capturingLog();
  const vapid = webpush.generateVAPIDKeys();
  const worker = new PushWorker(outbox, { ...vapid, subject: 'mailto:owner@example.com' }, log, {
    pollIntervalMs: 20,
    requestTimeoutMs: 2_000,
    allowPlainHttp: options.allowPlainHttp ?? false,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
  });
  worker.start();
  try {
    await expect.poll(() => settled.length, { timeout: 10_000 }).toBe(rows.length);
  } finally {
    await worker.stop();
  }
  return { settled, log };
}

/** A resolver that answers every name with 127.0.0.1 and remembers what it was asked. */
function rebindingResolver(answers: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return (answers[hostname] ?? ['127.0.0.1']).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

describe('attack: a device token whose push endpoint is an internal host', () => {
  it('never connects to a loopback TLS service, whatever the spelling, and gives each row up at once', async () => {
    const endpoints = [
      `https://127.0.0.1:${port}/x`,
      `https://localhost:${port}/x`,
      `https://[::1]:${port}/x`,
      `https://[::ffff:127.0.0.1]:${port}/x`,
      `https://127.1:${port}/x`,
      `https://2130706433:${port}/x`,
      `https://0x7f.0.0.1:${port}/x`,
    ];
    const rows = endpoints.map(row);
    const { settled, log } = await deliver(rows);
    expect(accepted).toBe(0);
    for (const result of settled) {
      expect(result.retryAfterSeconds).toBeUndefined();
      expect(result.error).toMatch(/^endpoint_refused: /);
    }
    // Logged once per row, when it is given up.
    expect(log.warnings).toHaveLength(rows.length);
  });

  it('refuses a public-looking name that resolves to loopback (or to private among public addresses), and connects to nothing', async () => {
    const resolver = rebindingResolver({
      'push.example.com': ['127.0.0.1'],
      'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
      'v6.example.com': ['::ffff:127.0.0.1'],
      'link.example.com': ['169.254.169.254'],
      'cgnat.example.com': ['100.64.0.1'],
      'ula.example.com': ['fd00::1'],
    });
    const rows = Object.keys({
      'push.example.com': 1,
      'mixed.example.com': 1,
      'v6.example.com': 1,
      'link.example.com': 1,
      'cgnat.example.com': 1,
      'ula.example.com': 1,
    }).map((host) => row(`https://${host}:${port}/x`));
    const { settled } = await deliver(rows, { resolveHost: resolver });
    expect(accepted).toBe(0);
    expect(
      settled.every(
        (result) => result.retryAfterSeconds === undefined && result.error.startsWith('endpoint_refused: '),
      ),
    ).toBe(true);
    // Each name was looked up exactly once: the answer checked is the answer used.
    expect(resolver.asked.sort()).toEqual([
      'cgnat.example.com',
      'link.example.com',
      'mixed.example.com',
      'push.example.com',
      'ula.example.com',
      'v6.example.com',
    ]);
  });

  it('still lets WEB_PUSH_ALLOW_HTTP reach a plain-HTTP loopback receiver, and only that', async () => {
    const { settled } = await deliver([row(`http://127.0.0.1:${port}/x`)], { allowPlainHttp: true });
    // The connection was made (the listener speaks TLS, so the plain request fails and is retried).
    expect(accepted).toBe(1);
    expect(settled[0]?.retryAfterSeconds).toBeGreaterThan(0);
    accepted = 0;
    const refused = await deliver([row(`https://127.0.0.1:${port}/x`)], { allowPlainHttp: true });
    expect(accepted).toBe(0);
    expect(refused.settled[0]?.error).toMatch(/^endpoint_refused: /);
  });
});

describe('attack: registering a device token for an internal host through /__backend', () => {
  it('is refused with 400 push_endpoint_refused before the database sees it; a public endpoint passes unchanged', async () => {
    const bodies: string[] = [];
    const upstream = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(randomUUID()));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const resolver = rebindingResolver({ 'fcm.googleapis.com': ['142.250.74.106'] });
    const gateway = await startTestGateway({
      backend: {
        url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        anonKey: 'anon-key',
        serviceRoleKey: 'service-key',
      },
      push: { resolveHost: resolver },
    });
    const register = (endpoint: string) =>
      gateway.app.inject({
        method: 'POST',
        url: '/__backend/rest/v1/rpc/community_register_device_token',
        headers: { apikey: 'anon-key', authorization: 'Bearer student-token', 'content-type': 'application/json' },
        payload: JSON.stringify({ p_token: token(endpoint) }),
      });
    try {
      for (const endpoint of [
        `https://127.0.0.1:${port}/x`,
        `https://[::ffff:7f00:1]:${port}/x`,
        `https://internal.example.com/x`,
      ]) {
        const refused = await register(endpoint);
        expect(refused.statusCode, endpoint).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'push_endpoint_refused' });
      }
      expect(bodies).toEqual([]);
      const allowed = await register('https://fcm.googleapis.com/fcm/send/abc');
      expect(allowed.statusCode).toBe(200);
      expect(JSON.parse(bodies[0] ?? '{}').p_token).toContain('https://fcm.googleapis.com/fcm/send/abc');
    } finally {
      await gateway.close();
      upstream.close();
    }
  });
});

// Body sizes: every route refuses one byte over its limit with 413 payload_too_large naming the
// limit, and accepts its limit; the proxy refuses over 50 MiB before forwarding, counts chunked
// bodies, and passes a backend's own early 413 through instead of "the backend did not answer".
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../src/security/body-limits.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { rawRequest } from './raw-http.ts';

const MiB = 1024 * 1024;
const TOKEN = `e30.${Buffer.from(JSON.stringify({ sub: '11111111-2222-3333-4444-555555555555' })).toString('base64url')}.sig`;

/** A JSON object whose serialised size is exactly `bytes`. */
function jsonOfSize(bytes: number): string {
  const skeleton = JSON.stringify({ payload: { filler: '' } });
  return JSON.stringify({ payload: { filler: 'x'.repeat(bytes - skeleton.length) } });
}

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway({
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 }, errorReports: { max: 1_000, windowMs: 60_000 } },
  });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

describe('gateway routes', () => {
  it.each([
    ['/__auth/login', BODY_LIMITS.json],
    ['/__auth/signup', BODY_LIMITS.json],
    ['/__leaderboard', BODY_LIMITS.json],
    ['/__errors', BODY_LIMITS.errorReport],
    ['/__auth/profile', BODY_LIMITS.profile],
    ['/__auth/backup', BODY_LIMITS.backup],
    ['/__auth/snapshot', BODY_LIMITS.backup],
    ['/__auth/import', BODY_LIMITS.backup],
    ['/__auth/restore-best-backup', BODY_LIMITS.backup],
  ])('POST %s refuses its limit + 1 byte with 413 naming the limit, and accepts the limit', async (url, limit) => {
    const over = await fetch(`${baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: jsonOfSize(limit + 1),
    });
    expect(over.status).toBe(413);
    const refusal = await over.json();
    expect(refusal).toMatchObject({ error: 'payload_too_large', limit_bytes: limit });
    expect(refusal.message).toContain(`${limit / MiB} MiB`);
    const at = await fetch(`${baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: jsonOfSize(limit),
    });
    expect(at.status).not.toBe(413);
  });

  it('agrees with the backend: a backup is at most half of what localbase takes as JSON', async () => {
    // localbase's JSON limit is decided with it (16 MiB); the gateway's largest JSON body is 8 MiB.
    expect(BODY_LIMITS.backup * 2).toBeLessThanOrEqual(16 * MiB);
    expect(BODY_LIMITS.proxy).toBe(50 * MiB);
  });
});

describe('the proxy', () => {
  let upstream: FastifyInstance;
  let seenBodies: number[];
  let proxied: TestGateway;
  let proxiedUrl: string;
  let upstreamUrl: string;

  beforeAll(async () => {
    seenBodies = [];
    // A backend like localbase: Fastify with a 1 MiB JSON limit, which answers 413 before it has
    // read the body and closes the connection.
    upstream = Fastify({ bodyLimit: MiB });
    upstream.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: 64 * MiB },
      (_request, body, done) => done(null, body),
    );
    upstream.post('/*', async (request) => {
      seenBodies.push(Buffer.isBuffer(request.body) ? request.body.length : JSON.stringify(request.body).length);
      return { stored: true };
    });
    upstreamUrl = await upstream.listen({ port: 0, host: '127.0.0.1' });
    proxied = await startTestGateway({
      backend: { url: upstreamUrl, anonKey: 'anon', serviceRoleKey: 'service' },
      proxy: { bodyLimitBytes: 3 * MiB, jsonBodyLimitBytes: MiB },
    });
    proxiedUrl = await proxied.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await proxied.close();
    await upstream.close();
  });

  it('refuses a declared Content-Length over the limit with 413 before forwarding anything', async () => {
    const gatewayDefault = await rawRequest(baseUrl, {
      method: 'PUT',
      path: '/__backend/storage/v1/object/study-material/big.bin',
      headers: { 'content-length': String(50 * MiB + 1), 'content-type': 'application/octet-stream' },
    });
    expect(gatewayDefault.status).toBe(413);
    expect(JSON.parse(gatewayDefault.body)).toMatchObject({ error: 'payload_too_large', limit_bytes: 50 * MiB });
    const before = seenBodies.length;
    const small = await rawRequest(proxiedUrl, {
      method: 'POST',
      path: '/__backend/storage/v1/object/x',
      headers: { 'content-length': String(3 * MiB + 1), 'content-type': 'application/octet-stream' },
    });
    expect(JSON.parse(small.body)).toMatchObject({ error: 'payload_too_large', limit_bytes: 3 * MiB });
    expect(seenBodies.length).toBe(before);
  });

  it('counts a chunked body as it streams and refuses it past the limit', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(97);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * MiB) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${proxiedUrl}/__backend/storage/v1/object/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large', limit_bytes: 3 * MiB });
  });

  it("refuses a JSON body over the backend's JSON limit itself, naming it, so the backend never cuts the upload", async () => {
    const before = seenBodies.length;
    const response = await fetch(`${proxiedUrl}/__backend/rest/v1/user_backups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filler: 'x'.repeat(MiB + 1) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large', limit_bytes: MiB });
    expect(seenBodies.length).toBe(before);
  });

  it("never reports a backend's refusal of a large body as 'the backend did not answer'", async () => {
    // A gateway whose JSON limit is above this backend's: the backend answers 413 before reading
    // and closes; its answer comes through, or the cut upload is named for what it is.
    const lenient = await startTestGateway({
      backend: { url: upstreamUrl, anonKey: 'anon', serviceRoleKey: 'service' },
      proxy: { jsonBodyLimitBytes: 3 * MiB },
    });
    const lenientUrl = await lenient.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      for (const size of [2 * MiB, 2.5 * MiB, 2 * MiB, 2.9 * MiB, 2 * MiB]) {
        const response = await fetch(`${lenientUrl}/__backend/rest/v1/user_backups`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ filler: 'x'.repeat(size) }),
        });
        const body = await response.json();
        if (response.status === 413) expect(body.code, `${size} bytes`).toBe('FST_ERR_CTP_BODY_TOO_LARGE');
        else expect(body, `${size} bytes`).toMatchObject({ error: 'backend_closed_upload' });
      }
    } finally {
      await lenient.close();
    }
  });

  it('passes through unchanged the 413 of a backend that reads the body before refusing it', async () => {
    const reading = http.createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response
          .writeHead(413, { 'content-type': 'application/json' })
          .end(
            '{"statusCode":"413","error":"Payload too large","message":"The object exceeded the maximum allowed size"}',
          ),
      );
    });
    await new Promise<void>((resolve) => reading.listen(0, '127.0.0.1', resolve));
    const gatewayForIt = await startTestGateway({
      backend: {
        url: `http://127.0.0.1:${(reading.address() as AddressInfo).port}`,
        anonKey: 'a',
        serviceRoleKey: 's',
      },
    });
    const url = await gatewayForIt.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await fetch(`${url}/__backend/storage/v1/object/avatars/u/a.png`, {
          method: 'POST',
          headers: { 'content-type': 'image/png' },
          body: new Uint8Array(3 * MiB),
        });
        expect(response.status).toBe(413);
        expect((await response.json()).message).toBe('The object exceeded the maximum allowed size');
      }
    } finally {
      await gatewayForIt.close();
      reading.close();
    }
  });

  it('forwards a body within both limits unchanged', async () => {
    const response = await fetch(`${proxiedUrl}/__backend/rest/v1/user_backups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filler: 'x'.repeat(512 * 1024) }),
    });
    expect(response.status).toBe(200);
    expect(seenBodies.at(-1)).toBe(512 * 1024 + 13);
  });
});

describe('a request without a body', () => {
  it('goes through the proxy body counter untouched', async () => {
    const server = http.createServer((_request, response) => response.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const plain = await startTestGateway({
      backend: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, anonKey: 'a', serviceRoleKey: 's' },
    });
    try {
      expect((await plain.app.inject({ method: 'DELETE', url: '/__backend/rest/v1/x' })).statusCode).toBe(200);
    } finally {
      await plain.close();
      server.close();
    }
  });
});

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipRelay } from '../src/pip/pip-relay.ts';
import { openSse } from './sse-client.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

/** The open protocol of PIP_PAIRING=off (for a single-user machine only). */
const UNPAIRED = { config: { pipPairing: false } };

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway(UNPAIRED);
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

const snapshot = {
  phase: 'focus',
  running: true,
  remainingMs: 1_500_000,
  completionAtMs: 1_900_000_000_000,
  subject: { id: 's1', name: 'Biology' },
  task: null,
  attempts: { correct: 3, incorrect: 1, skipped: 0 },
  target: 20,
};

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('timer snapshot', () => {
  it('answers an idle snapshot with updatedAt null before any page posted one', async () => {
    const fresh = await startTestGateway(UNPAIRED);
    try {
      const response = await fresh.app.inject({ url: '/api/pip/state' });
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({
        phase: 'idle',
        running: false,
        remainingMs: 0,
        completionAtMs: null,
        subject: null,
        task: null,
        attempts: { correct: 0, incorrect: 0, skipped: 0 },
        target: null,
        updatedAt: null,
      });
    } finally {
      await fresh.close();
    }
  });

  it('keeps the latest posted snapshot, stamped with the server time', async () => {
    const before = Date.now();
    const posted = await gateway.app.inject({
      method: 'POST',
      url: '/__pip/state',
      payload: { ...snapshot, updatedAt: 'client clock' },
    });
    expect(posted.statusCode).toBe(200);
    const latest = (await gateway.app.inject({ url: '/api/pip/state' })).json();
    expect(latest).toMatchObject(snapshot);
    expect(latest.updatedAt).toBeGreaterThanOrEqual(before);
  });

  it.each([
    ['an unknown phase', { ...snapshot, phase: 'nap' }],
    ['a negative remaining time', { ...snapshot, remainingMs: -1 }],
    ['a missing attempts object', { ...snapshot, attempts: undefined }],
    ['an unknown field', { ...snapshot, secret: true }],
  ])('refuses a snapshot with %s and keeps the previous one', async (_name, body) => {
    const before = (await gateway.app.inject({ url: '/api/pip/state' })).json();
    const response = await gateway.app.inject({ method: 'POST', url: '/__pip/state', payload: body });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
    expect((await gateway.app.inject({ url: '/api/pip/state' })).json()).toEqual(before);
  });
});

describe('PiP actions', () => {
  it('accepts and drops an action when no focus page is open', async () => {
    const fresh = await startTestGateway(UNPAIRED);
    try {
      const response = await fresh.app.inject({
        method: 'POST',
        url: '/api/pip/action',
        payload: { action: 'correct' },
      });
      expect(response.statusCode).toBe(202);
      expect(response.json()).toMatchObject({ accepted: true, delivered: 0 });
    } finally {
      await fresh.close();
    }
  });

  it.each([
    ['an unknown action', { action: 'explode' }],
    ['target without a target', { action: 'target' }],
    ['a target of zero', { action: 'target', target: 0 }],
    ['a fractional target', { action: 'target', target: 2.5 }],
    ['a target on another action', { action: 'skip', target: 3 }],
  ])('refuses %s with 400', async (_name, payload) => {
    const response = await gateway.app.inject({ method: 'POST', url: '/api/pip/action', payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('relays one action to two open tabs over real SSE connections', async () => {
    const tabA = await openSse(`${baseUrl}/__pip/events`);
    const tabB = await openSse(`${baseUrl}/__pip/events`);
    try {
      const hello = await tabA.next('hello');
      expect(hello.data).toMatchObject({ snapshot: { phase: 'focus' } });
      await tabB.next('hello');
      const response = await fetch(`${baseUrl}/api/pip/action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'target', target: 25 }),
      });
      expect(response.status).toBe(202);
      const accepted = await response.json();
      expect(accepted).toMatchObject({ accepted: true, delivered: 2 });
      for (const tab of [tabA, tabB]) {
        const event = await tab.next('pip-action');
        expect(event.data).toMatchObject({ id: accepted.id, action: 'target', target: 25 });
        expect(typeof (event.data as { at: number }).at).toBe('number');
      }
    } finally {
      tabA.close();
      tabB.close();
    }
  });

  it('removes a closed tab, so later actions count only open ones', async () => {
    const staying = await openSse(`${baseUrl}/__pip/events`);
    const leaving = await openSse(`${baseUrl}/__pip/events`);
    await staying.next('hello');
    await leaving.next('hello');
    await waitFor(() => gateway.relay.openStreams === 2);
    leaving.close();
    await waitFor(() => gateway.relay.openStreams === 1);
    const response = await gateway.app.inject({ method: 'POST', url: '/api/pip/action', payload: { action: 'undo' } });
    expect(response.json().delivered).toBe(1);
    expect((await staying.next('pip-action')).data).toMatchObject({ action: 'undo' });
    staying.close();
    await waitFor(() => gateway.relay.openStreams === 0);
  });

  it('drops a client that stops reading, while a reading tab still gets every action', async () => {
    const relay = new PipRelay(60_000, 16 * 1024);
    const gateway = await startTestGateway({ ...UNPAIRED, relay });
    const baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const reader = await openSse(`${baseUrl}/__pip/events`);
    await reader.next('hello');
    // A raw socket that sends the request and then never reads a byte.
    const stalled = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    stalled.on('error', () => {});
    stalled.write('GET /__pip/events HTTP/1.1\r\nHost: localhost\r\n\r\n');
    stalled.pause();
    await waitFor(() => gateway.relay.openStreams === 2);
    const big = { action: 'target', target: 9_999 } as const;
    let lastDelivered = 2;
    // Until the kernel's socket buffers of the stalled connection are full, writes still succeed.
    for (let round = 0; round < 400_000 && lastDelivered === 2; round++) {
      lastDelivered = relay.relayPipAction(big).delivered;
      if (round % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(lastDelivered).toBe(1);
    expect(gateway.relay.openStreams).toBe(1);
    const response = await gateway.app.inject({ method: 'POST', url: '/api/pip/action', payload: { action: 'skip' } });
    expect(response.json().delivered).toBe(1);
    reader.close();
    stalled.destroy();
    await gateway.close();
  }, 60_000);
});

describe('the companion across origins', () => {
  it('answers the preflight and both routes with CORS headers for any origin', async () => {
    const preflight = await gateway.app.inject({
      method: 'OPTIONS',
      url: '/api/pip/action',
      headers: {
        origin: 'http://localhost',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type',
    });
    const state = await gateway.app.inject({ url: '/api/pip/state', headers: { origin: 'http://localhost' } });
    expect(state.headers['access-control-allow-origin']).toBe('*');
    const action = await gateway.app.inject({
      method: 'POST',
      url: '/api/pip/action',
      headers: { origin: 'http://localhost' },
      payload: { action: 'skip' },
    });
    expect(action.headers['access-control-allow-origin']).toBe('*');
  });

  it('does not open the browser-side relay routes to other origins', async () => {
    const state = await gateway.app.inject({
      method: 'POST',
      url: '/__pip/state',
      headers: { origin: 'http://evil.example' },
      payload: {},
    });
    expect(state.headers['access-control-allow-origin']).toBeUndefined();
  });
});

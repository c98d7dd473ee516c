// The companion's HTTP client against a real gateway on loopback (no fake server): snapshots,
// deliveries, pairing refusals, a dead port and a server that never answers.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { openSse } from '#gateway/test/sse-client.ts';
import { createPipClient, type FetchLike } from './pip-client.ts';

const nodeFetch: FetchLike = (url, init) => fetch(url, init);
let plain: TestGateway;
let plainUrl: string;
let paired: TestGateway;
let pairedUrl: string;

beforeAll(async () => {
  plain = await startTestGateway({ config: { pipPairing: false } });
  plainUrl = await plain.app.listen({ host: '127.0.0.1', port: 0 });
  paired = await startTestGateway({ config: { pipPairing: true } });
  pairedUrl = await paired.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await plain.close();
  await paired.close();
});

const snapshot = {
  phase: 'focus',
  running: true,
  remainingMs: 1_200_000,
  completionAtMs: 1_900_000_000_000,
  subject: { id: 'm', name: 'Maths' },
  task: { id: 't', title: 'Exercises 4.1' },
  attempts: { correct: 5, incorrect: 2, skipped: 1 },
  target: 30,
};

describe('a server without pairing', () => {
  it('reads the idle snapshot, then the one a focus page posted', async () => {
    const client = createPipClient({ serverUrl: plainUrl, pairingCode: null, fetch: nodeFetch });
    expect(await client.getState()).toMatchObject({ kind: 'snapshot', snapshot: { phase: 'idle', updatedAt: null } });
    await fetch(`${plainUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(snapshot),
    });
    expect(await client.getState()).toMatchObject({
      kind: 'snapshot',
      snapshot: { ...snapshot, updatedAt: expect.any(Number) },
    });
  });

  it('reports delivered 0 with no page open and 1 with one, and the page gets the action', async () => {
    const client = createPipClient({ serverUrl: plainUrl, pairingCode: null, fetch: nodeFetch });
    expect(await client.sendAction({ action: 'skip' })).toMatchObject({ kind: 'accepted', delivered: 0 });
    const page = await openSse(`${plainUrl}/__pip/events`);
    try {
      await page.next('hello');
      const answer = await client.sendAction({ action: 'target', target: 12 });
      expect(answer).toMatchObject({ kind: 'accepted', delivered: 1 });
      expect((await page.next('pip-action')).data).toMatchObject({ action: 'target', target: 12 });
    } finally {
      page.close();
    }
  });

  it('calls a refused action what it is', async () => {
    const client = createPipClient({ serverUrl: plainUrl, pairingCode: null, fetch: nodeFetch });
    const answer = await client.sendAction({ action: 'target', target: 0 });
    expect(answer).toMatchObject({ kind: 'refused', status: 400 });
  });
});

describe('a server with PIP_PAIRING=on', () => {
  it('says a code is needed, that a wrong one is wrong, and works with the right one', async () => {
    const pairing = await (
      await fetch(`${pairedUrl}/__pip/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json();
    await fetch(`${pairedUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pip-channel': pairing.channel },
      body: JSON.stringify(snapshot),
    });
    const without = createPipClient({ serverUrl: pairedUrl, pairingCode: null, fetch: nodeFetch });
    expect(await without.getState()).toMatchObject({ kind: 'pairing', reason: 'pairing_required' });
    expect(await without.sendAction({ action: 'correct' })).toMatchObject({
      kind: 'pairing',
      reason: 'pairing_required',
    });
    const wrong = createPipClient({ serverUrl: pairedUrl, pairingCode: 'ZZZZZZ', fetch: nodeFetch });
    expect(await wrong.getState()).toMatchObject({ kind: 'pairing', reason: 'pairing_code_invalid' });
    const right = createPipClient({ serverUrl: pairedUrl, pairingCode: pairing.code, fetch: nodeFetch });
    expect(await right.getState()).toMatchObject({ kind: 'snapshot', snapshot: { subject: { name: 'Maths' } } });
    expect(await right.sendAction({ action: 'undo' })).toMatchObject({ kind: 'accepted', delivered: 0 });
  });
});

describe('an unreachable server', () => {
  it('reports a refused connection as unreachable', async () => {
    const client = createPipClient({ serverUrl: 'http://127.0.0.1:1', pairingCode: null, fetch: nodeFetch });
    expect(await client.getState()).toMatchObject({ kind: 'unreachable', message: 'Cannot reach http://127.0.0.1:1.' });
  });

  it('gives up on a server that accepts the connection but never answers', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const client = createPipClient({
        serverUrl: `http://127.0.0.1:${port}`,
        pairingCode: null,
        fetch: nodeFetch,
        timeoutMs: 300,
      });
      const started = Date.now();
      expect(await client.getState()).toMatchObject({
        kind: 'unreachable',
        message: expect.stringContaining('did not answer'),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });

  it('does not take another web server for studyhall', async () => {
    const client = createPipClient({ serverUrl: `${plainUrl}/__app`, pairingCode: null, fetch: nodeFetch });
    expect(await client.getState()).toMatchObject({ kind: 'unreachable' });
  });
});
